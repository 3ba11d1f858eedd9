import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildElectron, ROOT } from '../tools/setup/build-electron.ts';

describe('electron bundle', () => {
  it('builds, and the engine-process bundle answers a ping over a port in plain Node', async () => {
    // Inside the checkout: the bundle resolves its npm packages from node_modules, as in the app.
    await mkdir(join(ROOT, 'dist'), { recursive: true });
    const dir = await mkdtemp(join(ROOT, 'dist', 'electron-test-'));
    try {
      await buildElectron(dir);
      const harness = join(ROOT, 'electron/testing/fake-utility-process.ts');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', harness, join(dir, 'engine-process.mjs')], { cwd: ROOT });
      expect(JSON.parse(stdout)).toMatchObject({ id: 1, ok: true, result: { protocolVersion: 1 } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
