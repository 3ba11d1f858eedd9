/**
 * The engine's worker modules: the files WorkerGroup starts as threads (worker-group.ts), each
 * referenced from its starter as `new URL('./…-worker.ts', import.meta.url)`. A bundle of the
 * engine (build-engine.ts, build-electron.ts) builds each into its own entry under `workers/`
 * and tells worker-bootstrap.ts where they are (builtWorkersDefine), so its threads start from
 * built code instead of loading tsx and the sources. engine-workers.test.ts fails when a worker
 * module exists that this list misses: the bundle would then refuse to start it.
 */
import type { BuildOptions } from 'esbuild';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ENGINE_WORKER_MODULES = [
  'engine/pipeline/gradient-worker.ts',
  'engine/pipeline/gates-worker.ts',
  'engine/pipeline/curvature-pass-worker.ts',
  'engine/pipeline/delta-worker.ts',
  'engine/pipeline/forward-lane-worker.ts',
] as const;

/** Built files are ESM whatever package.json says: `.mjs`. */
export const BUILT_EXTENSION = '.mjs';

/** A worker's built file, relative to the bundle's output folder: workers/gates-worker.mjs. */
export function builtWorkerFile(source: string): string {
  return `workers/${basename(source, '.ts')}${BUILT_EXTENSION}`;
}

/**
 * What every bundle of the engine shares (build-engine.ts, build-electron.ts): ESM `.mjs` files,
 * `entry` (`out` without the extension) beside every worker module under `workers/`, the code
 * they share in `chunks/`, and CRANE_BUILT_WORKERS pointing at the built workers.
 */
export function engineBundleOptions(root: string, outDir: string, entry: { in: string; out: string }): BuildOptions {
  return {
    entryPoints: [entry, ...workerEntryPoints(root)],
    outdir: outDir,
    outExtension: { '.js': BUILT_EXTENSION },
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    define: builtWorkersDefine(root, outDir),
  };
}

/** esbuild entry points (`out` without the extension) for every worker module. */
function workerEntryPoints(root: string): { in: string; out: string }[] {
  return ENGINE_WORKER_MODULES.map((source) => ({ in: join(root, source), out: builtWorkerFile(source).slice(0, -BUILT_EXTENSION.length) }));
}

/**
 * esbuild `define` for CRANE_BUILT_WORKERS: the source file URL of every worker (what its starter's
 * `new URL(…, import.meta.url)` gives once source-file-urls.ts has replaced import.meta.url) → the
 * URL of its built file in `outDir`. Sources run through tsx or vitest never see the constant.
 */
export function builtWorkersDefine(root: string, outDir: string): Record<string, string> {
  const map = Object.fromEntries(ENGINE_WORKER_MODULES.map((source) => [pathToFileURL(join(root, source)).href, pathToFileURL(join(outDir, builtWorkerFile(source))).href]));
  return { CRANE_BUILT_WORKERS: JSON.stringify(map) };
}
