/**
 * The source of a worker thread that runs one of the engine's worker modules
 * (`new Worker(workerSource(url), { eval: true, workerData })`).
 *
 * Run from the sources (the CLI through tsx, vitest), the module is TypeScript: the thread
 * registers tsx first, as its parent did, then imports it. In a bundle of the engine
 * (tools/setup/build-engine.ts, build-electron.ts) the build defines CRANE_BUILT_WORKERS, the
 * built file of every worker module by its source URL: the thread imports that file and skips
 * tsx, which costs every thread about as much start-up as the CLI's own load. A module the bundle
 * lacks is refused rather than quietly loaded through tsx (tools/setup/engine-workers.ts lists
 * them, and its test checks the list).
 */
declare const CRANE_BUILT_WORKERS: Readonly<Record<string, string>> | undefined;

export function workerSource(module: URL): string {
  if (typeof CRANE_BUILT_WORKERS === 'undefined') {
    const tsx = import.meta.resolve('tsx/esm/api');
    return `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); });`;
  }
  const built = CRANE_BUILT_WORKERS[module.href];
  if (built === undefined) throw new Error(`internal: ${module.href} is not a worker module of this engine build (tools/setup/engine-workers.ts lists them)`);
  return `import(${JSON.stringify(built)});`;
}
