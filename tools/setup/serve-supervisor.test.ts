import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './build-electron.ts';
import { superviseServe } from './serve-supervisor.ts';

let dataDir: string;
const runDataDir = process.env['CRANE_DATA_DIR'];

beforeAll(() => {
  // crane serve prepares the demo project in its data folder: a throw-away one (it inherits this env).
  dataDir = mkdtempSync(join(tmpdir(), 'crane-serve-supervisor-'));
  process.env['CRANE_DATA_DIR'] = dataDir;
});

afterAll(() => {
  if (runDataDir === undefined) delete process.env['CRANE_DATA_DIR'];
  else process.env['CRANE_DATA_DIR'] = runDataDir;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('superviseServe', () => {
  it('starts a killed crane serve again on the same port with the same token, so the first cookie still opens the engine', async () => {
    const restarts: string[] = [];
    const served = await superviseServe({ root: ROOT, uiDir: join(dataDir, 'no-build'), onRestart: (line) => restarts.push(line) });
    try {
      const first = served.current();
      const page = await fetch(served.url);
      expect(page.status).toBe(200);
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      await expect.poll(() => served.current() !== first, { timeout: 30_000 }).toBe(true);
      expect(restarts).toEqual([expect.stringMatching(/^crane serve exited \(SIGKILL\); starting it again on port \d+ with the same session/)]);
      const origin = new URL(served.url).origin;
      expect((await fetch(`${origin}/`, { headers: { cookie } })).status).toBe(200);
      expect((await fetch(`${origin}/`)).status).toBe(401);
    } finally {
      await served.stop();
    }
    expect(await served.ended).toBe(0);
    expect(served.current().child.exitCode ?? served.current().child.signalCode).not.toBeNull();
  });
});
