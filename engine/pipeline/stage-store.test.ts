import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { markStageDone, STAGE_MARKER, stageStatus } from './stage-store.ts';

describe('stageStatus', () => {
  const key = { inputs: { reasoning: 'aa11' }, settings: { maxRank: 8 } };

  it('is missing without a marker, cached with the same key, stale naming what changed', () => withTempDir(async (dir) => {
    expect(await stageStatus(dir, key)).toEqual({ state: 'missing' });
    await markStageDone(dir, key);
    expect(await stageStatus(dir, key)).toEqual({ state: 'cached' });
    expect(await stageStatus(dir, { ...key, settings: { maxRank: 16 } })).toEqual({ state: 'stale', reasons: ['settings changed'] });
  }));

  it.each([
    ['not JSON', '{"inputs":', 'not valid JSON'],
    ['not a JSON object', '["inputs"]', 'is not a stage marker'],
  ])('is stale, naming the marker, when it is %s', (_what, text, reason) => withTempDir(async (dir) => {
    await writeFile(join(dir, STAGE_MARKER), text);
    const status = await stageStatus(dir, key);
    expect(status.state).toBe('stale');
    expect(status.state === 'stale' ? status.reasons.join('\n') : '').toContain(`${join(dir, STAGE_MARKER)}: `);
    expect(status.state === 'stale' ? status.reasons.join('\n') : '').toContain(reason);
  }));
});
