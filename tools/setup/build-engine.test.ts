/**
 * The built engine runs without tsx — its CLI and the worker threads an analysis starts, under
 * testing/refuse-tsx.mjs, which fails every import of tsx in every thread — and its manifest makes
 * the CLI's freshness check (bin/engine-build-state.mjs) turn stale when one source byte changes.
 * The build goes to a folder of its own inside the checkout (packages resolve from node_modules);
 * the freshness cases run on temporary copies of the sources, never on the repository.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEngineState, ENGINE_BUILD_MANIFEST, type EngineBuildManifest } from '../../bin/engine-build-state.mjs';
import { writeTinyProject } from '../../engine/pipeline/testing/tiny-project.ts';
import { initBackend } from '../../engine/tensor/backend.ts';
import { buildEngine } from './build-engine.ts';
import { ENGINE_WORKER_MODULES } from './engine-workers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REFUSE_TSX = fileURLToPath(new URL('./testing/refuse-tsx.mjs', import.meta.url));

let out: string;
let scratch: string;
let manifest: EngineBuildManifest;

beforeAll(async () => {
  await mkdir(join(ROOT, 'dist'), { recursive: true });
  out = await mkdtemp(join(ROOT, 'dist', 'engine-build-test-'));
  scratch = await mkdtemp(join(tmpdir(), 'crane-engine-build-'));
  manifest = await buildEngine(out);
  // What bin/crane.mjs does with a fresh build, pointed at this one.
  await writeFile(join(out, 'run-cli.mjs'), `import { main } from './${manifest.cli}';\nprocess.exitCode = await main(process.argv.slice(2));\n`);
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

/** The built CLI (or, with `source`, bin/crane.mjs on the sources) with tsx refused everywhere. */
async function craneWithoutTsx(args: readonly string[], engine: 'built' | 'source' = 'built'): Promise<{ code: number; out: string }> {
  const entry = engine === 'built' ? join(out, 'run-cli.mjs') : join(ROOT, 'bin', 'crane.mjs');
  const env = engine === 'source' ? { ...process.env, CRANE_ENGINE: 'source' } : process.env;
  return promisify(execFile)(process.execPath, ['--import', REFUSE_TSX, entry, ...args], { cwd: ROOT, env, maxBuffer: 1 << 24 }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, out: error.stdout + error.stderr }),
  );
}

describe('the built engine', () => {
  it('answers --help without tsx, where the sources cannot start', async () => {
    const built = await craneWithoutTsx(['--help']);
    expect(built.code).toBe(0);
    expect(built.out).toContain('Usage: crane <command> [options]');
    // The control: the same refusal stops the sources, so the line above proves something.
    const source = await craneWithoutTsx(['--help'], 'source');
    expect(source.code).not.toBe(0);
    expect(source.out).toContain('tsx refused');
  });

  it('runs an analysis whose gradient, gates and curvature threads start from the built workers', async () => {
    await initBackend('wasm');
    const project = await writeTinyProject(join(scratch, 'project'));
    const { reasoning, agent, format } = project.settings.analysis.calibration;
    const analyzed = await craneWithoutTsx(['analyze', project.instruct, project.thinking, '--reasoning', reasoning, '--tool-use', agent, '--format', format,
      '--out', join(scratch, 'analysis'), '--reasoning-max-new-tokens', '6', '--agent-max-new-tokens', '5', '--max-rank', '8', '--batch', '2', '--workers', '2']);
    expect(analyzed.out).not.toContain('tsx refused');
    expect(analyzed.code).toBe(0);
    expect(analyzed.out).toContain('gates: 2 layers on 2 worker threads');
    expect(analyzed.out).toMatch(/curvature: \d+ passes on 2 worker threads/);
  }, 180_000);
});

describe('the freshness check', () => {
  /** A checkout of the built sources alone, under `scratch`, with this build's manifest for it. */
  async function copiedCheckout(name: string): Promise<{ root: string; outDir: string }> {
    const root = join(scratch, name);
    const outDir = join(root, 'dist', 'engine');
    const files = [...Object.keys(manifest.sources).map((path) => [join(ROOT, path), join(root, path)]), ...[manifest.cli, ...Object.values(manifest.workers)].map((path) => [join(out, path), join(outDir, path)])];
    for (const [from, to] of files as [string, string][]) {
      await mkdir(dirname(to), { recursive: true });
      await copyFile(from, to);
    }
    await writeFile(join(outDir, ENGINE_BUILD_MANIFEST), JSON.stringify({ ...manifest, root }));
    return { root, outDir };
  }

  it('the manifest holds the bundled engine sources and the build recipe, no packages', () => {
    const sources = Object.keys(manifest.sources);
    expect(sources).toEqual(expect.arrayContaining(['engine/cli/main.ts', 'engine/pipeline/worker-bootstrap.ts', 'tools/setup/build-engine.ts', ...ENGINE_WORKER_MODULES]));
    expect(sources.filter((path) => path.includes('node_modules') || !/^(engine|tools)\//.test(path))).toEqual([]);
    expect(manifest.workers['engine/pipeline/gates-worker.ts']).toBe('workers/gates-worker.mjs');
  });

  it('is fresh on an unchanged copy, stale once one byte of one source changes, fresh again when it is restored', async () => {
    const { root, outDir } = await copiedCheckout('one-byte');
    expect(builtEngineState(root, outDir)).toEqual({ fresh: true, cli: join(outDir, 'cli.mjs') });
    const source = join(root, 'engine/pipeline/worker-group.ts');
    const original = await readFile(source);
    const changed = Buffer.from(original);
    changed[100] = (changed[100] as number) ^ 1;
    await writeFile(source, changed);
    expect(builtEngineState(root, outDir)).toEqual({ fresh: false, reason: 'engine/pipeline/worker-group.ts changed since the build' });
    await writeFile(source, original);
    expect(builtEngineState(root, outDir).fresh).toBe(true);
  });

  it('is stale when a source or a built worker is gone, for another checkout, and when never built', async () => {
    const { root, outDir } = await copiedCheckout('gone');
    await rm(join(outDir, 'workers/delta-worker.mjs'));
    expect(builtEngineState(root, outDir)).toEqual({ fresh: false, reason: 'workers/delta-worker.mjs is missing' });
    await rm(join(root, 'engine/cli/main.ts'));
    expect(builtEngineState(root, outDir)).toEqual({ fresh: false, reason: 'engine/cli/main.ts was removed since the build' });
    expect(builtEngineState(ROOT, outDir)).toEqual({ fresh: false, reason: `built for another checkout (${root})` });
    expect(builtEngineState(root, join(scratch, 'nowhere'))).toEqual({ fresh: false, reason: 'not built' });
  });
});
