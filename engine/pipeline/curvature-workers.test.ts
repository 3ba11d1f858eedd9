/**
 * The curvature stage's passes on worker threads, on a tiny analysed pair (untied lm_head, so
 * the embedding and lm_head directions are there): curvature.json is byte-identical with 1 and
 * 2 workers, the anchors among the workers' passes, and so it is on a tied pair (the embedding
 * shared with the workers, the head read whole from there); a stage cancelled after its first pass on
 * the workers resumes from passes.json with only the passes it lacks, to the same bytes, and so
 * does one that lacks only its anchors; a worker that cannot run its pass (directional or
 * anchor) rejects with a CurvatureWorkerError naming the pass.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURVATURE_FILE } from '../analysis/preview-curvature.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { anchorName } from './curvature-passes.ts';
import { ANCHOR_ALPHAS } from './curvature-stage.ts';
import { CurvatureWorkerError, runPassesOnWorkers, type CurvatureWorkerData } from './curvature-workers.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { CancelledError } from './progress.ts';
import { runAnalysis } from './run-analysis.ts';
import { STAGE_MARKER } from './stage-store.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';

const NO_TOKENS = { think: [], special: [] };
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
    const total = 2 * (1 + (JSON.parse(oneWorker.toString('utf8')) as { directions: unknown[] }).directions.length) + ANCHOR_ALPHAS.length;
    expect(logged.length).toBeLessThan(total);

    const logs: string[] = [];
    await runAnalysis({ ...project, settings, onLog: (message) => logs.push(message) });
    expect(logs).toContain(`curvature: ${total - logged.length} passes on 2 worker threads`);
    expect(await readFile(join(dir, CURVATURE_FILE))).toEqual(oneWorker);
    const finished = Object.keys(JSON.parse(await readFile(join(dir, 'passes.json'), 'utf8')) as object);
    expect(finished).toHaveLength(total);
    expect(finished).toEqual(expect.arrayContaining(ANCHOR_ALPHAS.map(anchorName)));
  }, 600_000);

  it('resume a stage that lacks only its anchors on the workers, to the same curvature.json', async () => {
    const dir = pipelinePaths(project.outDir).curvature;
    const anchors = new Set(ANCHOR_ALPHAS.map(anchorName));
    const log = Object.entries(JSON.parse(await readFile(join(dir, 'passes.json'), 'utf8')) as object).filter(([name]) => !anchors.has(name));
    // what a stage interrupted after its last directional pass leaves: started.json, and the log without the anchors
    await writeFile(join(dir, 'passes.json'), JSON.stringify(Object.fromEntries(log)));
    await rm(join(dir, STAGE_MARKER));
    await rm(join(dir, CURVATURE_FILE));
    const logs: string[] = [];
    await runAnalysis({ ...project, settings: { ...project.settings, workers: 2 }, onLog: (message) => logs.push(message) });
    expect(logs).toContain('curvature: resuming an interrupted run');
    expect(logs).toContain(`curvature: ${ANCHOR_ALPHAS.length} passes on 2 worker threads`);
    expect(await readFile(join(dir, CURVATURE_FILE))).toEqual(oneWorker);
  }, 600_000);

  it('give the same curvature.json as one thread with a tied head, shared with the workers', async () => {
    const tiedRoot = join(root, 'tied');
    const tied = await analysedProject(tiedRoot, { model: { tied: true }, noise: 0.01 });
    const dir = pipelinePaths(tied.outDir).curvature;
    const one = await readFile(join(dir, CURVATURE_FILE));
    await rm(dir, { recursive: true });
    const logs: string[] = [];
    await runAnalysis({ ...tied, settings: { ...tied.settings, workers: 2 }, onLog: (message) => logs.push(message) });
    expect(logs.some((m) => /^curvature: \d+ passes on 2 worker threads$/.test(m))).toBe(true);
    expect(await readFile(join(dir, CURVATURE_FILE))).toEqual(one);
  }, 600_000);

  it('rejects with a CurvatureWorkerError naming the pass when a worker cannot run it, or the worker when it cannot start', async () => {
    const scratch = join(root, 'empty.scratch');
    await writeFile(scratch, '');
    const setup: CurvatureWorkerData = {
      instruct: project.instruct, backend: 'wasm', memoryBudget: 2 ** 30, batchSize: 8,
      directions: { sealed: { path: scratch, tensors: [] }, size: 1, directionCount: 1, thinking: project.thinking, recipe: { tensorNames: [], stages: defaultResolvedSettings(NO_TOKENS), tokens: NO_TOKENS, gate: null, projectors: new Map() } }, shared: [],
    };
    const run = runPassesOnWorkers(setup, [{ kind: 'pass', name: 'reasoning:base', sequences: [{ ids: [1, 2, 10 ** 9] }] }], 2, async () => {});
    await expect(run).rejects.toBeInstanceOf(CurvatureWorkerError);
    await expect(run).rejects.toThrow(/curvature worker 1 on pass reasoning:base .*token id 1000000000/);

    const { gate, projectors } = project.run.artifacts;
    const anchors = { thinking: join(root, 'no-such-checkpoint'), edit: { defaults: defaultResolvedSettings(NO_TOKENS), gate, projectors } };
    const anchor = runPassesOnWorkers({ ...setup, directions: undefined, anchors }, [{ kind: 'anchor', name: anchorName(1), alpha: 1, sequences: [{ ids: [1, 2, 3] }] }], 1, async () => {});
    await expect(anchor).rejects.toThrow(/curvature worker 1 failed.*no-such-checkpoint/);
  }, 120_000);
});
