import { describe, expect, it } from 'vitest';
import { launchRequests } from './launch-args.ts';

describe('launch arguments', () => {
  it('opens a pair given both folders, resolved against the working directory', () => {
    expect(launchRequests(['electron', 'main.mjs', '--instruct', 'demo/i', '--thinking', '/abs/t'], '/work')).toEqual({
      requests: [{ kind: 'pair', instruct: '/work/demo/i', thinking: '/abs/t' }],
      problems: [],
    });
  });

  it('opens a project', () => {
    expect(launchRequests(['--project', '/p'], '/').requests).toEqual([{ kind: 'project', projectDir: '/p' }]);
  });

  it('says so when half a pair is given, and ignores foreign switches', () => {
    const plan = launchRequests(['--no-sandbox', '--instruct', '/i', '--thinking', '--inspect'], '/');
    expect(plan.requests).toEqual([]);
    expect(plan.problems).toEqual([expect.stringContaining('--thinking')]);
    expect(launchRequests(['--enable-logging', 'x'], '/')).toEqual({ requests: [], problems: [] });
  });
});
