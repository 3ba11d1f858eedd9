/**
 * Main's side of starting the engine's utility process: which data folder it gets (passed with
 * common/engine-process-args.ts). Node-only, so it is unit-tested without Electron.
 */
import { resolve } from 'node:path';

/** CRANE_DATA_DIR when set (tests, e2e), else the app's userData folder. */
export function hostDataDir(env: NodeJS.ProcessEnv, userData: string): string {
  const explicit = env['CRANE_DATA_DIR'];
  return explicit !== undefined && explicit !== '' ? resolve(explicit) : userData;
}
