/**
 * The Electron build keeps the engine out of main: the real main.mjs is checked, and a main
 * entry that reaches engine code is refused. The preload bundle loads nothing but `electron`
 * (a sandboxed preload cannot require modules). The engine process maps every worker module to
 * a built file beside it, so its worker threads start without tsx.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElectron, buildMain, mainBundleProblems, ROOT } from './build-electron.ts';
import { ENGINE_WORKER_MODULES } from './engine-workers.ts';

let out: string;
beforeAll(async () => {
  // Inside the checkout, so module comments and package resolution are as in dist/electron.
  await mkdir(join(ROOT, 'dist'), { recursive: true });
  out = await mkdtemp(join(ROOT, 'dist', 'electron-build-test-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe('electron build', () => {
  it('main.mjs holds no tfjs, tokenizers or jinja, and no engine code beyond the bridge contract and static files', async () => {
    await buildElectron(join(out, 'app'));
    const main = await readFile(join(out, 'app', 'main.mjs'), 'utf8');
    expect(mainBundleProblems(main)).toEqual([]);
    // What main does bundle from engine/: the contract it validates IPC with, and the file resolver.
    expect(main).toMatch(/^\/\/ engine\/protocol\/desktop-bridge\.ts$/m);
    expect(main).toMatch(/^\/\/ engine\/server\/static-files\.ts$/m);
  });

  it('refuses a main that reaches the engine, naming what got in', async () => {
    const entry = join(out, 'planted-main.ts');
    await writeFile(entry, "import { initBackend } from '../../engine/tensor/backend.ts';\nawait initBackend();\n");
    const failure = await buildMain(entry, join(out, 'planted')).then(() => undefined, (error: Error) => error.message);
    expect(failure).toContain('must not contain engine code');
    expect(failure).toContain('mentions @tensorflow/');
    expect(failure).toContain('bundles engine/tensor/backend.ts');
  });

  it('the preload requires only electron', async () => {
    const preload = await readFile(join(out, 'app', 'preload.cjs'), 'utf8');
    const required = [...preload.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]);
    expect(new Set(required)).toEqual(new Set(['electron']));
  });

  it('the engine process starts every worker module from a built file of its own', async () => {
    const chunks = await Promise.all((await readdir(join(out, 'app', 'chunks'))).filter((name) => name.endsWith('.mjs')).map((name) => readFile(join(out, 'app', 'chunks', name), 'utf8')));
    // esbuild writes the CRANE_BUILT_WORKERS define once, as a JSON-shaped object literal.
    const defined = chunks.map((text) => /^var define_CRANE_BUILT_WORKERS_default = (\{.*\});$/m.exec(text)?.[1]).filter((text) => text !== undefined);
    expect(defined).toHaveLength(1);
    const workers = JSON.parse(defined[0] as string) as Record<string, string>;
    expect(Object.keys(workers).sort()).toEqual(ENGINE_WORKER_MODULES.map((source) => pathToFileURL(join(ROOT, source)).href).sort());
    for (const built of Object.values(workers)) {
      expect(built.startsWith(pathToFileURL(join(out, 'app', 'workers')).href)).toBe(true);
      expect(existsSync(fileURLToPath(built))).toBe(true);
    }
  });
});
