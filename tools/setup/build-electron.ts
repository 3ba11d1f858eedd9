/**
 * Builds electron/ into dist/electron with esbuild:
 *   main.mjs, engine-process.mjs   ESM for Node (Electron's main and utility process)
 *   preload.cjs                    one CommonJS file: a sandboxed preload cannot load modules
 * npm packages stay external (resolved from node_modules at run time: native and wasm packages
 * cannot be bundled), our TypeScript is bundled.
 *
 * engine/ code computes paths from `import.meta.url` (assets, package.json, wasm files). In a
 * bundle that would be the bundle's URL, so in engine/ files `import.meta.url` is replaced by
 * the source file's own URL: the bundle then finds what the sources find when run by the CLI.
 * electron/ files keep the bundle's URL: main finds preload.cjs and dist/renderer from there.
 *
 * Usage: node --import tsx tools/setup/build-electron.ts   (also called by tools/start.ts)
 */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ELECTRON_OUT = join(ROOT, 'dist', 'electron');
export const ELECTRON_MAIN = join(ELECTRON_OUT, 'main.mjs');

const sourceFileUrls: Plugin = {
  name: 'source-file-import-meta-url',
  setup(context) {
    const engineDir = join(ROOT, 'engine') + sep;
    context.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      if (!path.startsWith(engineDir)) return undefined;
      const source = await readFile(path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)), loader: 'ts' };
    });
  },
};

export async function buildElectron(outDir = ELECTRON_OUT): Promise<void> {
  const common: BuildOptions = {
    bundle: true,
    platform: 'node',
    target: 'node22',
    packages: 'external',
    external: ['electron'],
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [sourceFileUrls],
  };
  await Promise.all([
    build({
      ...common,
      format: 'esm',
      entryPoints: { main: join(ROOT, 'electron/main.ts'), 'engine-process': join(ROOT, 'electron/engine-process.ts') },
      outdir: outDir,
      outExtension: { '.js': '.mjs' },
    }),
    build({ ...common, format: 'cjs', entryPoints: [join(ROOT, 'electron/preload.ts')], outfile: join(outDir, 'preload.cjs') }),
  ]);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildElectron();
  console.log(`built ${ELECTRON_OUT}`);
}
