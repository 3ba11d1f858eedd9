/**
 * Builds what the journeys load: the renderer when it is stale, and the Electron bundles (cheap,
 * and the electron project needs them even when only the web project is selected later).
 *
 * Every engine a spec starts (`crane serve`, the desktop app's utility process) keeps its
 * projects — the demo project among them — in CRANE_DATA_DIR. Unless the caller set one, the
 * run gets a throw-away folder, removed when the run ends, so no spec writes into the user's
 * real data folder. (Workers inherit this process's environment.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildElectron, ROOT } from '../../tools/setup/build-electron.ts';
import { rendererIsStale } from '../../tools/setup/start-plan.ts';

export default async function globalSetup(): Promise<() => void> {
  if (rendererIsStale(ROOT)) {
    const result = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
    if (result.status !== 0) throw new Error('e2e: the renderer build failed');
  }
  await buildElectron();
  if ((process.env['CRANE_DATA_DIR'] ?? '') !== '') return () => undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'crane-e2e-data-'));
  process.env['CRANE_DATA_DIR'] = dataDir;
  return () => rmSync(dataDir, { recursive: true, force: true });
}
