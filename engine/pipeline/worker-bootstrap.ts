/**
 * The source of a worker thread that runs a TypeScript module: tsx registered first, then the
 * module imported (`new Worker(tsxWorkerSource(url), { eval: true, workerData })`). The engine
 * runs its .ts files through tsx in every process, so its workers need the same loader.
 */
const TSX_API = import.meta.resolve('tsx/esm/api');

export function tsxWorkerSource(module: URL): string {
  return `import(${JSON.stringify(TSX_API)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); });`;
}
