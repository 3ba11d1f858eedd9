import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { buildElectron, ROOT } from '../../tools/setup/build-electron.ts';

describe('electron bundle', () => {
  it('builds, and the engine-process bundle answers over a port in plain Node, on the demo project of its --data-dir', async () => {
    // Inside the checkout: the bundle resolves its npm packages from node_modules, as in the app.
    await mkdir(join(ROOT, 'dist'), { recursive: true });
    const dir = await mkdtemp(join(ROOT, 'dist', 'electron-test-'));
    // The data folder main passes (userData in the app): a throw-away one, never the user's.
    const dataDir = await mkdtemp(join(tmpdir(), 'crane-engine-data-'));
    try {
      await buildElectron(dir);
      const harness = join(ROOT, 'electron/testing/fake-utility-process.ts');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', harness, join(dir, 'engine-process.mjs'), '--data-dir', dataDir], { cwd: ROOT });
      const replies = stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; ok: boolean; result: unknown });
      expect(replies.find((r) => r.id === 1)).toMatchObject({ ok: true, result: { protocolVersion: 1 } });
      const state = replies.find((r) => r.id === 2);
      expect(state?.ok).toBe(true);
      if (existsSync(join(demoPaths().instruct, 'config.json'))) {
        // Like `crane serve`: the app starts on the demo pair, its project kept in the data folder.
        expect(state?.result).toMatchObject({ projectDir: join(dataDir, 'projects', 'demo'), project: { instruct: demoPaths().instruct } });
      } else {
        expect(state?.result).toBeNull();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
