/**
 * Main's side of starting the engine's utility process: which data folder it gets (passed with
 * common/engine-process-args.ts) and the environment it starts with (engineProcessEnv, which
 * browser mode's `crane serve` child gets too: tools/setup/serve-process.ts). Node-only, so it is
 * unit-tested without Electron.
 */
import { resolve } from 'node:path';

/** CRANE_DATA_DIR when set (tests, e2e), else the app's userData folder. */
export function hostDataDir(env: NodeJS.ProcessEnv, userData: string): string {
  const explicit = env['CRANE_DATA_DIR'];
  return explicit !== undefined && explicit !== '' ? resolve(explicit) : userData;
}

const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb';

/**
 * The engine process's environment: its host's, with glibc's malloc asked to back large blocks
 * with transparent huge pages (env unchanged off Linux, or when the user set that tunable).
 * Why: the engine fills tensor-sized arrays (hundreds of MB) read by read, and with 4 KiB pages
 * every first touch is a fault and a zeroed page. Measured on the 2-core dev machine
 * (ARCHITECTURE "Compute profile", export): a 0.6B-shaped task-arithmetic export 418–427 k →
 * 101–109 k faults, 23.4–24.7 → 14.0–18.7 CPU s, output identical. glibc reads GLIBC_TUNABLES
 * only at process start, so the host sets it; other libcs ignore it.
 */
export function engineProcessEnv(env: Readonly<Record<string, string | undefined>>, platform: string): Record<string, string | undefined> {
  const current = env['GLIBC_TUNABLES'];
  if (platform !== 'linux' || current?.split(':').some((entry) => entry.startsWith(`${HUGE_PAGES_TUNABLE}=`)) === true) return { ...env };
  return { ...env, GLIBC_TUNABLES: current === undefined || current === '' ? `${HUGE_PAGES_TUNABLE}=1` : `${current}:${HUGE_PAGES_TUNABLE}=1` };
}
