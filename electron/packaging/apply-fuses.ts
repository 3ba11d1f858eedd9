/**
 * Flips the fuses of fuse-plan.ts in a packaged app's Electron binary with @electron/fuses, then
 * reads the fuse wire back and fails unless every planned fuse took.
 *
 * Usage: node --import tsx electron/packaging/apply-fuses.ts PATH_TO_ELECTRON_BINARY_OR_APP [--asar]
 *   --asar   the app is packed into an asar archive: integrity validation and asar-only loading on
 *
 * @electron/fuses is not a dependency (nothing here packages the app yet): the packaging step
 * installs it (`npm i -D @electron/fuses`); without it this script says so and exits 2.
 */
import { pathToFileURL } from 'node:url';
import { fusePlan, type FuseName, type FusePlan } from './fuse-plan.ts';

/** The part of @electron/fuses used here (its FuseV1Options is a numeric enum: name → wire index). */
export interface FusesModule {
  readonly FuseVersion: { readonly V1: string };
  readonly FuseV1Options: Readonly<Record<string, string | number>>;
  readonly FuseState: { readonly ENABLE: number; readonly DISABLE: number };
  flipFuses(pathToElectron: string, config: Readonly<Record<string, unknown>>): Promise<number>;
  getCurrentFuseWire(pathToElectron: string): Promise<Readonly<Record<string, unknown>>>;
}

export interface Target {
  readonly platform: NodeJS.Platform;
  readonly arch: string;
}

/** Applies `plan` to `binary`; resolves with one line per fuse, rejects naming any that did not take. */
export async function applyFuses(binary: string, plan: FusePlan, fuses: FusesModule, target: Target = process): Promise<string[]> {
  const planned = Object.entries(plan) as Array<[FuseName, boolean]>;
  const config: Record<string, unknown> = {
    version: fuses.FuseVersion.V1,
    // Rewriting the binary breaks its ad-hoc signature, which Apple silicon refuses to run.
    resetAdHocDarwinSignature: target.platform === 'darwin' && target.arch === 'arm64',
  };
  for (const [name, on] of planned) config[fuseIndex(fuses, name)] = on;
  await fuses.flipFuses(binary, config);

  const wire = await fuses.getCurrentFuseWire(binary);
  const expected = (on: boolean) => (on ? fuses.FuseState.ENABLE : fuses.FuseState.DISABLE);
  const missed = planned.filter(([name, on]) => wire[fuseIndex(fuses, name)] !== expected(on)).map(([name]) => name);
  if (missed.length > 0) throw new Error(`${binary}: these fuses did not take: ${missed.join(', ')}`);
  return planned.map(([name, on]) => `${name}: ${on ? 'on' : 'off'}`);
}

function fuseIndex(fuses: FusesModule, name: FuseName): string {
  const index = fuses.FuseV1Options[name];
  if (typeof index !== 'number') throw new Error(`@electron/fuses knows no fuse ${name}: update @electron/fuses`);
  return String(index);
}

/** The installed @electron/fuses, or undefined when it is not installed. */
export async function loadFuses(specifier = '@electron/fuses'): Promise<FusesModule | undefined> {
  try {
    return (await import(specifier)) as FusesModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const binary = args.find((arg) => !arg.startsWith('--'));
  const fuses = await loadFuses();
  if (binary === undefined) {
    console.error('usage: apply-fuses.ts PATH_TO_ELECTRON_BINARY_OR_APP [--asar]');
    process.exit(2);
  } else if (fuses === undefined) {
    console.error('apply-fuses: @electron/fuses is not installed; install it with `npm i -D @electron/fuses` in the packaging step');
    process.exit(2);
  } else {
    for (const line of await applyFuses(binary, fusePlan({ asar: args.includes('--asar') }), fuses)) console.log(line);
  }
}
