/**
 * Builds electron/ into dist/electron with esbuild, one bundle per runtime target:
 *   main.mjs            electron/main/main.ts                     ESM, Electron's main process
 *   engine-process.mjs  electron/engine-process/engine-process.ts ESM, the engine's utility process,
 *   workers/*.mjs       with the engine's worker modules (engine-workers.ts) as entries of their own
 *   chunks/*.mjs        and the code they share: its worker threads start from built files, no tsx
 *   preload.cjs         electron/preload/preload.ts               one CommonJS file: a sandboxed
 *                                                                 preload cannot load modules
 * npm packages stay external (resolved from node_modules at run time: native and wasm packages
 * cannot be bundled), our TypeScript is bundled.
 *
 * Main must stay free of the engine (tfjs, tokenizers, jinja load only in the utility process):
 * eslint holds electron/main/ to the bridge contract and the static-file resolver, and this
 * build refuses a main.mjs that bundles engine code anyway (mainBundleProblems).
 *
 * engine/ code computes paths from `import.meta.url` (assets, package.json, wasm files): in
 * engine/ files it is replaced by the source file's own URL (source-file-urls.ts), so the bundle
 * finds what the sources find when run by the CLI. electron/ files keep the bundle's URL: main
 * finds preload.cjs and dist/renderer from there.
 *
 * Usage: node --import tsx tools/setup/build-electron.ts   (also called by tools/start.ts)
 */
import { build, type BuildOptions } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseCli } from '../cli-args.ts';
import { engineBundleOptions } from './engine-workers.ts';
import { sourceFileUrls } from './source-file-urls.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ELECTRON_OUT = join(ROOT, 'dist', 'electron');
export const ELECTRON_MAIN = join(ELECTRON_OUT, 'main.mjs');

const NODE_BUNDLE: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  packages: 'external',
  external: ['electron'],
  sourcemap: 'linked',
  logLevel: 'warning',
  // Module comments in the bundle (`// engine/…`) are then relative to the repository.
  absWorkingDir: ROOT,
  plugins: [sourceFileUrls(ROOT)],
};

/** Text that must not appear in main.mjs: the engine's packages. */
const ENGINE_PACKAGES = ['@tensorflow/', 'tfjs', '@huggingface/tokenizers', '@huggingface/jinja'];
/** The engine/ sources main may bundle: the protocol (bridge contract) and the static-file resolver. */
const MAIN_MAY_BUNDLE = /^engine\/(protocol\.ts|protocol\/[\w-]+\.ts|server\/static-files\.ts)$/;

/** What in a main bundle's text belongs to the engine (empty when main is clean). */
export function mainBundleProblems(bundleText: string): string[] {
  const packages = ENGINE_PACKAGES.filter((name) => bundleText.includes(name)).map((name) => `mentions ${name}`);
  // esbuild heads each bundled module with a `// path` comment.
  const sources = [...bundleText.matchAll(/^\/\/ (engine\/\S+)$/gm)]
    .map((match) => match[1] as string)
    .filter((path) => !MAIN_MAY_BUNDLE.test(path))
    .map((path) => `bundles ${path}`);
  return [...packages, ...sources];
}

/** Bundles a main-process entry to `outDir/main.mjs` and refuses it if engine code got in. */
export async function buildMain(entry: string, outDir: string): Promise<void> {
  const outfile = join(outDir, 'main.mjs');
  await build({ ...NODE_BUNDLE, format: 'esm', entryPoints: [entry], outfile });
  const problems = mainBundleProblems(await readFile(outfile, 'utf8'));
  if (problems.length > 0) {
    throw new Error(`${outfile} must not contain engine code (it belongs in the engine's utility process): ${problems.join('; ')}`);
  }
}

export async function buildElectron(outDir = ELECTRON_OUT): Promise<void> {
  // Chunk names carry a content hash: without this every rebuild would leave the last ones behind.
  await rm(join(outDir, 'chunks'), { recursive: true, force: true });
  await Promise.all([
    buildMain(join(ROOT, 'electron/main/main.ts'), outDir),
    build({
      ...NODE_BUNDLE,
      ...engineBundleOptions(ROOT, outDir, { in: join(ROOT, 'electron/engine-process/engine-process.ts'), out: 'engine-process' }),
    }),
    build({ ...NODE_BUNDLE, format: 'cjs', entryPoints: [join(ROOT, 'electron/preload/preload.ts')], outfile: join(outDir, 'preload.cjs') }),
  ]);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  parseCli({ usage: ['node --import tsx tools/setup/build-electron.ts', 'npm run build:electron'], about: 'Builds electron/ into dist/electron (main.mjs, engine-process.mjs, preload.cjs).', options: {} });
  await buildElectron();
  console.log(`built ${ELECTRON_OUT}`);
}
