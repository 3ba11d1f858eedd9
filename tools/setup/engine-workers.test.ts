/**
 * ENGINE_WORKER_MODULES names every worker module in engine/ and nothing else: a module it misses
 * would be refused by the built engine (worker-bootstrap.ts) the first time a command starts it.
 * A worker module is found two ways: it serves its messages through workerJobs (worker-jobs.ts),
 * or a starter names it as `new URL('./….ts', import.meta.url)`. Test fixtures (testing/) and tests
 * are not part of the built engine.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_WORKER_MODULES } from './engine-workers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STARTED = /new URL\('(\.\.?\/[^']+\.ts)', import\.meta\.url\)/g;
const SERVES = /\bworkerJobs\s*[<(]/;

/** The worker modules under `root`/engine, as paths relative to `root`, sorted. */
async function findWorkerModules(root: string): Promise<string[]> {
  const found = new Set<string>();
  const files = (await readdir(join(root, 'engine'), { recursive: true }))
    .map((path) => join(root, 'engine', path))
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.split('/').includes('testing'));
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    const relativeToRoot = relative(root, file);
    if (SERVES.test(text) && !relativeToRoot.endsWith('worker-jobs.ts')) found.add(relativeToRoot);
    for (const [, target] of text.matchAll(STARTED)) found.add(relative(root, join(dirname(file), target as string)));
  }
  return [...found].sort();
}

const planted: string[] = [];
afterAll(() => Promise.all(planted.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('the engine worker list', () => {
  it('is every worker module of engine/, and only those', async () => {
    expect(await findWorkerModules(ROOT)).toEqual([...ENGINE_WORKER_MODULES].sort());
  });

  it('finds a planted worker module either way: by its message loop, or by its starter', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crane-worker-list-'));
    planted.push(root);
    await mkdir(join(root, 'engine', 'pipeline', 'testing'), { recursive: true });
    await writeFile(join(root, 'engine', 'pipeline', 'sorting-worker.ts'), "const jobs = workerJobs<FromSorter>('sorting-worker.ts', 'sorters.ts');\n");
    await writeFile(join(root, 'engine', 'pipeline', 'sorters.ts'), "const WORKER = new URL('./merging-worker.ts', import.meta.url);\n");
    await writeFile(join(root, 'engine', 'pipeline', 'testing', 'fake-worker.ts'), "const jobs = workerJobs<Fake>('fake-worker.ts', 'test');\n");
    expect(await findWorkerModules(root)).toEqual(['engine/pipeline/merging-worker.ts', 'engine/pipeline/sorting-worker.ts']);
  });
});
