#!/usr/bin/env node
// Postinstall, after ensure-electron-types.mjs: build the engine (build-engine.ts) so `crane` and
// its worker threads start without tsx's transform of every source.
//
// Never fails the install: a failed build (esbuild left out with --omit=dev, a source that does
// not build) prints a warning and exits 0; the CLI then runs the sources through tsx, as it does
// whenever the build is missing or stale.
import console from 'node:console';
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const build = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./build-engine.ts', import.meta.url))], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  const why = build.error?.message ?? (build.signal === null ? `exit code ${build.status}` : `signal ${build.signal}`);
  console.warn(
    `build-engine: WARNING: the engine build failed (${why}).\n` +
      '  The install continues; `crane` runs the sources through tsx (slower to start) until\n' +
      '  `npm run build:engine` succeeds.',
  );
}
