/**
 * The curvature stage's passes on worker threads, on a tiny analysed pair (untied lm_head, so
 * the embedding and lm_head directions are there): curvature.json is byte-identical with 1 and
 * 2 workers, a stage cancelled after its first pass on the workers resumes from passes.json with
 * only the passes it lacks, to the same bytes, and a worker that cannot run its pass rejects with
 * a CurvatureWorkerError naming the pass.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURVATURE_FILE } from '../analysis/preview-curvature.ts';
import { initBackend } from '../tensor/backend.ts';
import { CurvatureWorkerError, runPassesOnWorkers } from './curvature-workers.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { CancelledError } from './progress.ts';
import { runAnalysis } from './run-analysis.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';

let root: string;
let project: AnalysedProject;
/** The stage's file from the fixture's own run: one worker, the calling thread. */
let oneWorker: Buffer;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-curvature-workers-'));
  project = await analysedProject(root, { model: { tied: false }, noise: 0.01 });
  oneWorker = await readFile(join(pipelinePaths(project.outDir).curvature, CURVATURE_FILE));
}, 600_000);

afterAll(() => rm(root, { recursive: true, force: true }));

describe('curvature passes on worker threads', () => {
  it('give the same curvature.json as one thread, after a cancel on the workers and a resume that runs only the missing passes', async () => {
    const dir = pipelinePaths(project.outDir).curvature;
    await rm(dir, { recursive: true });
    const settings = { ...project.settings, workers: 2 };
    const controller = new AbortController();
    const cancelled = runAnalysis({
      ...project, settings, signal: controller.signal,
      onProgress: (e) => { if (e.stage === 'curvature' && /^[gH]_/.test(e.message ?? '')) controller.abort(); },
    });
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    const logged = Object.keys(JSON.parse(await readFile(join(dir, 'passes.json'), 'utf8')) as object);
    expect(logged.length).toBeGreaterThan(0);
    const total = 2 * (1 + (JSON.parse(oneWorker.toString('utf8')) as { directions: unknown[] }).directions.length);
    expect(logged.length).toBeLessThan(total);

    const logs: string[] = [];
    await runAnalysis({ ...project, settings, onLog: (message) => logs.push(message) });
    expect(logs).toContain(`curvature: ${total - logged.length} passes on 2 worker threads`);
    expect(await readFile(join(dir, CURVATURE_FILE))).toEqual(oneWorker);
  }, 600_000);

  it('rejects with a CurvatureWorkerError naming the pass when a worker cannot run it', async () => {
    const setup = {
      instruct: project.instruct, backend: 'wasm' as const, memoryBudget: 2 ** 30,
      sealed: { path: join(root, 'no-such.scratch'), tensors: [] }, size: 1, directionCount: 1, batchSize: 8,
    };
    const run = runPassesOnWorkers(setup, [{ name: 'reasoning:base', sequences: [{ ids: [1, 2, 3] }] }], 2, async () => {});
    await expect(run).rejects.toBeInstanceOf(CurvatureWorkerError);
    await expect(run).rejects.toThrow(/curvature worker 1 on pass reasoning:base .*no-such\.scratch/);
  }, 120_000);
});
