#!/usr/bin/env node
// Postinstall: make `import … from 'electron'` typecheck where the Electron binary is absent.
//
// `electron` is an optional dependency whose own postinstall downloads the binary; where that
// download is not reachable npm removes the whole package, electron.d.ts included, and every
// file under electron/ would fail to typecheck. Where the package is installed its own
// electron.d.ts is used and any cached copy is deleted (two copies would declare the module
// twice). Otherwise only electron.d.ts is taken from the registry tarball of the exact pinned
// version and kept under node_modules/.cache/electron-types/, which tsconfig.json includes
// (node_modules is neither committed nor linted, and `npm ci` starts it afresh).
//
// Never fails the install: a problem prints a warning and exits 0, and typechecking then
// reports the missing module, which the warning explains.
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const installed = join(root, 'node_modules', 'electron', 'electron.d.ts');
const cacheDir = join(root, 'node_modules', '.cache', 'electron-types');
const cached = join(cacheDir, 'electron.d.ts');
const stamp = join(cacheDir, 'version');

function main() {
  if (existsSync(installed)) {
    rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  const version = pinnedVersion();
  if (existsSync(cached) && readText(stamp) === version) return;
  const dir = mkdtempSync(join(tmpdir(), 'electron-types-'));
  let types;
  try {
    types = extractFile(gunzipSync(readFileSync(packTarball(version, dir))), 'package/electron.d.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (types === undefined) throw new Error(`electron@${version} tarball has no electron.d.ts`);
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cached, types);
  writeFileSync(stamp, version);
  console.log(`ensure-electron-types: Electron is not installed; using electron.d.ts of electron@${version} from the registry for typechecking.`);
}

function pinnedVersion() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const version = pkg.optionalDependencies?.electron ?? pkg.devDependencies?.electron ?? pkg.dependencies?.electron;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`package.json must pin electron to an exact version (found ${JSON.stringify(version)})`);
  }
  return version;
}

/** `npm pack` fetches the tarball through the user's own registry settings, proxy and cache. */
function packTarball(version, dir) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm?.endsWith('.js') ? [process.execPath, [npm]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  execFileSync(command, [...args, 'pack', `electron@${version}`, '--pack-destination', dir, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    // Keep npm's lifecycle variables of the outer install from steering this nested call.
    env: { ...process.env, npm_config_dry_run: 'false' },
    shell: process.platform === 'win32',
  });
  const file = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (file === undefined) throw new Error('npm pack produced no tarball');
  return join(dir, file);
}

/** The contents of one regular file of a ustar archive (the format npm writes). */
function extractFile(tar, wanted) {
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start, length) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = prefix === '' ? field(0, 100) : `${prefix}/${field(0, 100)}`;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const body = offset + 512;
    if (name === wanted && (type === '0' || type === '')) return tar.subarray(body, body + size);
    offset = body + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

try {
  main();
} catch (error) {
  console.warn(
    `ensure-electron-types: WARNING: could not provide Electron's type declarations (${error instanceof Error ? error.message : String(error)}).\n` +
      '  The install continues; `tsc` will report "Cannot find module \'electron\'" for electron/ until\n' +
      '  `node tools/setup/ensure-electron-types.mjs` succeeds (it needs the npm registry) or Electron installs.',
  );
}
