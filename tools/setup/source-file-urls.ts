/**
 * The esbuild plugin every bundle of engine code uses (the CLI's dist/engine, Electron's
 * engine-process.mjs): in engine/ files `import.meta.url` is replaced by the source file's own
 * URL. engine/ code computes paths from it (assets, package.json, wasm files, worker modules);
 * in a bundle it would be the bundle's URL, so the bundle then finds what the sources find when
 * run through tsx. Other files (electron/) keep the bundle's URL.
 */
import type { Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

export function sourceFileUrls(root: string): Plugin {
  const engineDir = join(root, 'engine') + sep;
  return {
    name: 'source-file-import-meta-url',
    setup(context) {
      context.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        if (!path.startsWith(engineDir)) return undefined;
        const source = await readFile(path, 'utf8');
        return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)), loader: 'ts' };
      });
    },
  };
}
