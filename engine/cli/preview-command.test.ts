/** `crane preview` reads its flags before any file: what it refuses needs no analysis folder. */
import { describe, expect, it } from 'vitest';
import { runCli } from './testing.ts';

describe('crane preview flags', () => {
  it('refuses another method\'s setting instead of ignoring it', async () => {
    const run = await runCli(['preview', '/nowhere', '--density', '0.3']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^crane preview: --density does not apply to --method crane \(it is a setting of ties/);
  });

  it('covers CRANE edits only', async () => {
    const run = await runCli(['preview', '/nowhere', '--method', 'ties', '--density', '0.3']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^crane preview: the preview covers CRANE edits only/);
  });

  it('reads CRANE\'s own settings and only then the folder', async () => {
    const run = await runCli(['preview', '/nowhere', '--tau', '0.05', '--protect-ids', '+9']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/not an analysis folder made by `crane analyze`/);
  });
});
