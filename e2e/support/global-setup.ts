/**
 * Builds what the journeys load: the renderer when it is stale, and the Electron bundles (cheap,
 * and the electron project needs them even when only the web project is selected later).
 */
import { spawnSync } from 'node:child_process';
import { buildElectron, ROOT } from '../../tools/setup/build-electron.ts';
import { rendererIsStale } from '../../tools/setup/start-plan.ts';

export default async function globalSetup(): Promise<void> {
  if (rendererIsStale(ROOT)) {
    const result = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
    if (result.status !== 0) throw new Error('e2e: the renderer build failed');
  }
  await buildElectron();
}
