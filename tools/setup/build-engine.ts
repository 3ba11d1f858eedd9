/**
 * `npm run build:engine`: the engine bundled once with esbuild into dist/engine, so `crane` and
 * the engine's worker threads skip tsx's transform of every source at start-up (about 1.5 CPU s
 * per process or thread):
 *   cli.mjs          engine/cli/main.ts (bin/crane.mjs imports its `main`)
 *   workers/*.mjs    every worker module (engine-workers.ts); worker-bootstrap.ts maps the
 *                    starters' source URLs to these through the CRANE_BUILT_WORKERS define
 *   chunks/*.mjs     code the entries share (code splitting: loaded once per thread)
 *   build.json       the manifest bin/engine-build-state.mjs checks before every command: the
 *                    checkout, the entries, and a content hash of every source the bundle holds
 *                    and of this build's own recipe
 * npm packages stay external (native and wasm packages cannot be bundled); engine/ files keep
 * their sources' import.meta.url (source-file-urls.ts). The CLI runs the sources through tsx
 * whenever the build is missing or any source has changed since.
 *
 * Usage: node --import tsx tools/setup/build-engine.ts   (npm run build:engine; postinstall and
 * `npm start` call it too)
 */
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ENGINE_BUILD_MANIFEST, engineOutDir, hashSource, type EngineBuildManifest } from '../../bin/engine-build-state.mjs';
import { parseCli } from '../cli-args.ts';
import { BUILT_EXTENSION, builtWorkerFile, ENGINE_WORKER_MODULES, engineBundleOptions } from './engine-workers.ts';
import { sourceFileUrls } from './source-file-urls.ts';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CLI_ENTRY = 'engine/cli/main.ts';
const CLI_FILE = `cli${BUILT_EXTENSION}`;
/** The build's own recipe: a change to how it builds makes an earlier build stale as well. */
const RECIPE = ['tools/setup/build-engine.ts', 'tools/setup/engine-workers.ts', 'tools/setup/source-file-urls.ts'];

/** Builds the engine into `outDir` and returns the manifest it wrote there last. */
export async function buildEngine(outDir = engineOutDir(ROOT)): Promise<EngineBuildManifest> {
  // The manifest goes first and comes back last: an interrupted build leaves the CLI on the sources.
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const { metafile } = await build({
    ...engineBundleOptions(ROOT, outDir, { in: join(ROOT, CLI_ENTRY), out: CLI_FILE.slice(0, -BUILT_EXTENSION.length) }),
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // For `node --enable-source-maps` when a stack trace must name the sources.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    absWorkingDir: ROOT,
    plugins: [sourceFileUrls(ROOT)],
  });
  // metafile inputs are relative to absWorkingDir; `<define:…>` and packages are not sources.
  const bundled = Object.keys(metafile.inputs).filter((path) => !path.startsWith('<') && !path.split('/').includes('node_modules'));
  const sources = await Promise.all([...bundled, ...RECIPE].sort().map(async (path) => [path, hashSource(await readFile(join(ROOT, path)))] as const));
  const manifest: EngineBuildManifest = {
    root: ROOT,
    cli: CLI_FILE,
    workers: Object.fromEntries(ENGINE_WORKER_MODULES.map((source) => [source, builtWorkerFile(source)])),
    sources: Object.fromEntries(sources),
  };
  await writeFile(join(outDir, ENGINE_BUILD_MANIFEST), `${JSON.stringify(manifest, null, 1)}\n`);
  return manifest;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  parseCli({ usage: ['node --import tsx tools/setup/build-engine.ts', 'npm run build:engine'], about: 'Bundles the engine (CLI and worker modules) into dist/engine; `crane` runs it while no source has changed since.', options: {} });
  const started = performance.now();
  const manifest = await buildEngine();
  console.log(`built ${engineOutDir(ROOT)} from ${Object.keys(manifest.sources).length} sources in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
