/**
 * TensorFlow.js backend selection at engine start-up.
 *
 *   initBackend()            best that loads: node-gpu → node → wasm → cpu
 *   initBackend('wasm')      exactly that one; failure is an error naming it (no silent fallback)
 *   env CRANE_BACKEND=wasm|cpu|node|node-gpu   the same override, read when no name is passed
 *
 * The native backends (@tensorflow/tfjs-node, -gpu) are optional dependencies, imported
 * dynamically so a missing package simply means "not available". In Node the wasm backend
 * needs its .wasm binaries located on disk (setWasmPaths to the package's dist folder); tfjs
 * runs wasm single-threaded under Node (threads are only used in browsers).
 */
import * as tf from '@tensorflow/tfjs-core';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerGradients } from './gradients.ts';

export const BACKEND_NAMES = ['node-gpu', 'node', 'wasm', 'cpu'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

export interface BackendInfo {
  /** Our name for it (node-gpu / node / wasm / cpu). */
  readonly name: BackendName;
  /** tfjs's registered name (tfjs-node and -gpu both register as "tensorflow"). */
  readonly tfName: string;
  /** Compute threads the backend uses (wasm: its pool; native: the CPU count; cpu: 1). */
  readonly threads: number;
  /** Why the better backends were skipped, one line each (empty when the first choice loaded). */
  readonly skipped: readonly string[];
}

/** The compute backend failed: it could not be loaded, or (subclasses) one of its workers failed. */
export class BackendError extends Error {
  override readonly name: string = 'BackendError';
}

const require = createRequire(import.meta.url);
let active: BackendInfo | undefined;

/** The backend chosen by the last successful initBackend, if any. */
export function activeBackend(): BackendInfo | undefined {
  return active;
}

/** The active backend's name, for worker threads that must compute on the same one; `work` names what needs it. */
export function requireActiveBackend(work: string): BackendName {
  if (active === undefined) throw new BackendError(`no backend is active: call initBackend before ${work}`);
  return active.name;
}

export function parseBackendName(value: string, source: string): BackendName {
  const name = value.trim().toLowerCase();
  if ((BACKEND_NAMES as readonly string[]).includes(name)) return name as BackendName;
  throw new BackendError(`${source}="${value}" is not a backend; use one of ${BACKEND_NAMES.join(', ')}`);
}

/**
 * Loads and activates a backend, then registers the runtime's gradients (gradients.ts) for the
 * kernels that have none. With `requested` (or CRANE_BACKEND) set, only that backend is tried;
 * otherwise the first of node-gpu, node, wasm, cpu that loads wins.
 */
export async function initBackend(requested?: BackendName, env: NodeJS.ProcessEnv = process.env): Promise<BackendInfo> {
  const info = await activateBackend(requested, env);
  // After activation: a native backend registers tfjs's own gradients on load, and those win.
  registerGradients();
  return info;
}

async function activateBackend(requested: BackendName | undefined, env: NodeJS.ProcessEnv): Promise<BackendInfo> {
  const fromEnv = env['CRANE_BACKEND'];
  const wanted = requested ?? (fromEnv !== undefined && fromEnv !== '' ? parseBackendName(fromEnv, 'CRANE_BACKEND') : undefined);
  if (wanted !== undefined) {
    try {
      active = { ...(await activate(wanted)), skipped: [] };
      return active;
    } catch (error) {
      throw new BackendError(`backend "${wanted}" was requested but could not be loaded: ${(error as Error).message}`);
    }
  }
  const skipped: string[] = [];
  for (const name of BACKEND_NAMES) {
    try {
      active = { ...(await activate(name)), skipped };
      return active;
    } catch (error) {
      skipped.push(`${name}: ${firstLine((error as Error).message)}`);
    }
  }
  throw new BackendError(`no TensorFlow.js backend could be loaded (${skipped.join('; ')})`);
}

async function activate(name: BackendName): Promise<Omit<BackendInfo, 'skipped'>> {
  switch (name) {
    case 'node-gpu':
    case 'node': {
      await importOptional(NATIVE_PACKAGES[name] as string);
      await setOrThrow('tensorflow');
      const { availableParallelism } = await import('node:os');
      return { name, tfName: 'tensorflow', threads: availableParallelism() };
    }
    case 'wasm': {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      wasm.setWasmPaths(wasmDistDir());
      await setOrThrow('wasm');
      return { name, tfName: 'wasm', threads: wasm.getThreadsCount() };
    }
    case 'cpu': {
      await import('@tensorflow/tfjs-backend-cpu');
      await setOrThrow('cpu');
      return { name, tfName: 'cpu', threads: 1 };
    }
  }
}

/** Folder holding tfjs-backend-wasm's .wasm binaries, with a trailing slash (setWasmPaths wants one). */
export function wasmDistDir(): string {
  const main = require.resolve('@tensorflow/tfjs-backend-wasm');
  return `${dirname(main)}/`;
}

const NATIVE_PACKAGES: Readonly<Partial<Record<BackendName, string>>> = { 'node-gpu': '@tensorflow/tfjs-node-gpu', node: '@tensorflow/tfjs-node' };

/**
 * Every backend with whether its package is installed: `missing` says why one cannot be tried.
 * (An installed native package can still fail to load; initBackend says so.) For tests that run
 * on every backend present.
 */
export function installedBackends(): { readonly name: BackendName; readonly missing?: string }[] {
  return BACKEND_NAMES.map((name) => {
    const pkg = NATIVE_PACKAGES[name];
    if (pkg === undefined || resolvable(pkg)) return { name };
    return { name, missing: `${pkg} is not installed (optional dependency)` };
  });
}

function resolvable(pkg: string): boolean {
  try {
    require.resolve(pkg);
    return true;
  } catch {
    return false;
  }
}

async function importOptional(pkg: string): Promise<void> {
  if (!resolvable(pkg)) throw new BackendError(`${pkg} is not installed (optional dependency)`);
  const resolved = require.resolve(pkg);
  // A computed specifier keeps TypeScript from requiring the optional package's types.
  await import(pathToFileURL(resolved).href);
}

async function setOrThrow(tfName: string): Promise<void> {
  const ok = await tf.setBackend(tfName);
  if (!ok || tf.getBackend() !== tfName) throw new BackendError(`tfjs could not initialise the "${tfName}" backend`);
  await tf.ready();
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** Used by tests and `crane doctor` to show where the wasm binaries are looked up. */
export function wasmBinaryPath(file = 'tfjs-backend-wasm-simd.wasm'): string {
  return join(wasmDistDir(), file);
}
