// Whether the built engine in dist/engine (tools/setup/build-engine.ts) may run instead of the
// sources: bin/crane.mjs asks before every command, so this file is plain JavaScript (it runs
// before any TypeScript loader) and cheap (reads and hashes the sources the build lists).
//
// build.json holds a content hash of every file the bundle was built from. The bundle is fresh
// only when each of them still hashes the same, it was built for this checkout (engine code in
// it holds its sources' absolute URLs: source-file-urls.ts) and its files are all there. A
// bundle older than any source is never run: the CLI then runs the sources through tsx.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ENGINE_BUILD_MANIFEST = 'build.json';

/** Where `npm run build:engine` writes the built engine. */
export function engineOutDir(root) {
  return join(root, 'dist', 'engine');
}

/** The content hash build.json records for each source file. */
export function hashSource(bytes) {
  return createHash('sha1').update(bytes).digest('hex');
}

export function builtEngineState(root, outDir = engineOutDir(root)) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(outDir, ENGINE_BUILD_MANIFEST), 'utf8'));
  } catch (error) {
    return { fresh: false, reason: error?.code === 'ENOENT' ? 'not built' : `${ENGINE_BUILD_MANIFEST} is unreadable (${error?.message})` };
  }
  if (manifest.root !== resolve(root)) return { fresh: false, reason: `built for another checkout (${manifest.root})` };
  for (const [path, hash] of Object.entries(manifest.sources)) {
    const changed = sourceChange(join(root, path), hash);
    if (changed !== undefined) return { fresh: false, reason: `${path} ${changed} since the build` };
  }
  const built = [manifest.cli, ...Object.values(manifest.workers)].find((file) => !existsSync(join(outDir, file)));
  if (built !== undefined) return { fresh: false, reason: `${built} is missing` };
  return { fresh: true, cli: join(outDir, manifest.cli) };
}

function sourceChange(file, hash) {
  try {
    return hashSource(readFileSync(file)) === hash ? undefined : 'changed';
  } catch {
    return 'was removed';
  }
}
