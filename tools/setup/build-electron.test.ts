/**
 * The Electron build keeps the engine out of main: the real main.mjs is checked, and a main
 * entry that reaches engine code is refused. The preload bundle loads nothing but `electron`
 * (a sandboxed preload cannot require modules).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElectron, buildMain, mainBundleProblems, ROOT } from './build-electron.ts';

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
});
