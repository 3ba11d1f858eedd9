/**
 * The gates stage on worker threads against the same stage in the calling thread, on a tiny
 * looped pair (two passes: the per-pass sums travel through the workers too): the same gate
 * table, coefficients and per-pass blocks, value for value; a cancel and a failing worker end it
 * with errors that say so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { runGates } from './gates-stage.ts';
import { GatesWorkerError } from './gates-workers.ts';
import { pipelinePaths, readPipelineRecord } from './pipeline-folder.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { CancelledError, StageClock } from './progress.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';

let root: string;
let project: AnalysedProject;
let instruct: Checkpoint;
let thinking: Checkpoint;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-gates-workers-'));
  project = await analysedProject(root, { model: { loop: { numLoops: 2 } } });
  [instruct, thinking] = await Promise.all([Checkpoint.open(project.instruct), Checkpoint.open(project.thinking)]);
}, 300_000);

afterAll(async () => {
  await Promise.all([instruct.close(), thinking.close()]);
  await rm(root, { recursive: true, force: true });
});

async function context(workers: number, signal?: AbortSignal): Promise<PipelineContext> {
  const record = await readPipelineRecord(project.outDir);
  const callbacks = signal === undefined ? {} : { signal };
  return { instruct, thinking, inputs: record.inputs, settings: { ...record.settings, workers }, paths: pipelinePaths(project.outDir), callbacks };
}

const gates = async (workers: number, signal?: AbortSignal) => runGates(await context(workers, signal), new StageClock('gates', () => {}));

describe('gates stage on worker threads', () => {
  it('gives the calling thread\'s gate table, coefficients and per-pass blocks exactly', async () => {
    const [one, two] = [await gates(1), await gates(2)];
    expect(two.artifacts.gate).toEqual(one.artifacts.gate);
    expect(two.artifacts.coefficients).toEqual(one.artifacts.coefficients);
    expect(two.passBlocks).toEqual(one.passBlocks);
    expect(one.passBlocks?.length).toBeGreaterThan(0);
    expect(one.artifacts.gate).toEqual(project.run.artifacts.gate);
  }, 120_000);

  it('stops with CancelledError when the signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(gates(2, controller.signal)).rejects.toBeInstanceOf(CancelledError);
  }, 60_000);

  it('a worker that cannot read its layer fails the stage naming the worker and the file', async () => {
    const ctx = await context(2);
    const broken = { ...ctx, paths: { ...ctx.paths, gradients: join(root, 'no-gradients') } };
    const failure = runGates(broken, new StageClock('gates', () => {}));
    await expect(failure).rejects.toThrow(/gates worker \d: .*no-gradients\/reasoning\/layer_\d@0\.safetensors: file not found/);
    await expect(failure).rejects.toBeInstanceOf(GatesWorkerError);
  }, 60_000);
});
