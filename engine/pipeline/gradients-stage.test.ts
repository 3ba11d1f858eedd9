/**
 * The gradients stage, data-parallel: any worker count writes the same bytes as one thread, the
 * batches add up to the one-pass gradient, and a worker that fails ends the stage with an error
 * naming it while the stores stay at their last commit (a rerun completes them).
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { defaultAnalysisSettings } from './analysis-settings.ts';
import { writeSequences, type CalibrationSequence } from './calibration-sequences.ts';
import { GradientStore } from './gradient-store.ts';
import { GradientWorkerError, runJobsOnWorkers, type GradientJob } from './gradient-worker-pool.ts';
import { gradientsKey, runGradients } from './gradients-stage.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { CancelledError, StageClock } from './progress.ts';

const VOCAB = 64;

beforeAll(async () => {
  await initBackend('wasm');
});

/** 5 D_R and 3 D_A train sequences; `badId` puts a token past the vocabulary into D_R's 5th. */
function sequences(badId = false): CalibrationSequence[] {
  const rng = new SeededRandom(7);
  const one = (set: 'reasoning' | 'agent', i: number): CalibrationSequence => {
    const length = 6 + ((i * 5) % 9);
    const ids = Array.from({ length }, () => Math.floor(rng.next() * VOCAB));
    return { set, split: 'train', source: `${set}:${i}`, ids, lossMask: ids.map((_, t) => (t >= 3 ? 1 : 0)) };
  };
  const all = [...Array.from({ length: 5 }, (_, i) => one('reasoning', i)), ...Array.from({ length: 3 }, (_, i) => one('agent', i))];
  if (badId) all[4] = { ...(all[4] as CalibrationSequence), ids: [VOCAB, ...(all[4] as CalibrationSequence).ids.slice(1)] };
  return all;
}

interface Run {
  readonly workers: number;
  readonly messages?: string[];
  readonly badId?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: () => void;
}

/** The gradients stage alone, batches of 2, into root/name; returns the stage folder. */
async function gradients(root: string, instruct: Checkpoint, name: string, run: Run): Promise<string> {
  const paths = pipelinePaths(join(root, name));
  const calibration = { reasoning: 'r.jsonl', agent: 'a.jsonl', format: 'f.jsonl' };
  const ctx = {
    instruct,
    paths,
    settings: { ...defaultAnalysisSettings(calibration), batchSequences: 2, workers: run.workers },
    callbacks: { onLog: (m: string) => run.messages?.push(m), signal: run.signal },
  } as unknown as PipelineContext;
  await mkdir(paths.targets, { recursive: true });
  await writeSequences(paths.sequences, sequences(run.badId));
  await runGradients(ctx, new StageClock('gradients', run.onProgress));
  return paths.gradients;
}

/** `tied: false` gives an lm_head of its own, which every thread reads a chunk at a time on demand (nothing shared). */
async function tinyInstruct(root: string, tied = true): Promise<Checkpoint> {
  const dir = join(root, 'instruct');
  await mkdir(dir);
  return Checkpoint.open(await writeTinyCheckpoint({ vocab: VOCAB, layers: 2, tied }, dir));
}

async function files(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const set of ['reasoning', 'agent']) {
    for (const file of (await readdir(join(dir, set))).sort()) out.set(`${set}/${file}`, await readFile(join(dir, set, file)));
  }
  return out;
}

describe('gradients stage on worker threads', () => {
  it('writes bit-identical gradient files with 1, 2 and 3 workers (untied lm_head read on demand, not shared)', () => withTempDir(async (root) => {
    const instruct = await tinyInstruct(root, false);
    try {
      const messages: string[] = [];
      const one = await files(await gradients(root, instruct, 'one', { workers: 1 }));
      const two = await files(await gradients(root, instruct, 'two', { workers: 2, messages }));
      const three = await files(await gradients(root, instruct, 'three', { workers: 3 }));
      // 68 tokens in all, so no batch above 9 (gradient-batches.ts): every sequence is a batch of its own
      expect(messages).toContain('gradients: 8 batches on 2 worker threads');
      // the closing timeline names both workers, and their batches add up to all 8
      const timeline = messages.find((m) => m.startsWith('gradients: worker 1: start')) ?? '';
      expect(timeline).toMatch(/; worker 2: start .*; main thread (CPU \d+\.\d s in )?\d+\.\d s$/);
      expect([...timeline.matchAll(/(\d+) batch(?:es)? busy/g)].reduce((sum, m) => sum + Number(m[1]), 0)).toBe(8);
      expect([...one.keys()]).toEqual(['reasoning/layer_0@5.safetensors', 'reasoning/layer_1@5.safetensors', 'reasoning/progress.json', 'agent/layer_0@3.safetensors', 'agent/layer_1@3.safetensors', 'agent/progress.json']);
      expect([...two.keys()]).toEqual([...one.keys()]);
      for (const [file, bytes] of one) {
        expect(two.get(file)?.equals(bytes), file).toBe(true);
        expect(three.get(file)?.equals(bytes), file).toBe(true);
      }
    } finally {
      await instruct.close();
    }
  }), 120_000);

  it('adds the batches up to the one-pass gradient', () => withTempDir(async (root) => {
    const instruct = await tinyInstruct(root);
    try {
      const batched = await GradientStore.open(join(await gradients(root, instruct, 'batched', { workers: 2 }), 'reasoning'));
      const model = loadCausalLM(instruct);
      const train = sequences().filter((s) => s.set === 'reasoning').map((s) => ({ ids: s.ids, targets: s.lossMask ?? [] }));
      const onePass = new Map<number, Map<string, Float32Array>>();
      await model.lossAndLayerGrads(train, (layer, grads) => void onePass.set(layer, grads));
      for (const [layer, grads] of onePass) {
        const sums = await batched.readLayer(layer);
        for (const [name, g] of grads) {
          const sum = sums.get(name) as Float32Array;
          const scale = Math.max(...g.map(Math.abs));
          expect(scale, name).toBeGreaterThan(0);
          expect(Math.max(...sum.map((v, i) => Math.abs(v - (g[i] as number)))) / scale, name).toBeLessThan(1e-5);
        }
      }
    } finally {
      await instruct.close();
    }
  }), 120_000);

  it('fails naming the worker and its batch, keeps the committed batches, and a rerun completes them', () => withTempDir(async (root) => {
    const instruct = await tinyInstruct(root);
    try {
      const reference = await files(await gradients(root, instruct, 'reference', { workers: 1 }));
      const failed = gradients(root, instruct, 'failed', { workers: 2, badId: true });
      await expect(failed).rejects.toThrow(GradientWorkerError);
      await expect(failed).rejects.toThrow(/^gradient worker [12] on g_R batch 5\/5 failed: token id 64 at position 0 is outside the vocabulary/);
      const dir = join(root, 'failed', 'stages', 'gradients');
      const store = await GradientStore.open(join(dir, 'reasoning'));
      expect(store.batchesDone).toBeLessThan(5);
      expect((await readdir(join(dir, 'reasoning'))).filter((f) => f.startsWith('layer_')).every((f) => f.endsWith(`@${store.batchesDone}.safetensors`))).toBe(true);
      const resumed = await files(await gradients(root, instruct, 'failed', { workers: 1 }));
      expect([...resumed.keys()]).toEqual([...reference.keys()]);
      for (const [file, bytes] of reference) expect(resumed.get(file)?.equals(bytes), file).toBe(true);
    } finally {
      await instruct.close();
    }
  }), 120_000);

  it('is cancelled by the signal and resumes to the same files', () => withTempDir(async (root) => {
    const instruct = await tinyInstruct(root);
    try {
      const reference = await files(await gradients(root, instruct, 'reference', { workers: 1 }));
      const controller = new AbortController();
      const cancelled = gradients(root, instruct, 'cancelled', { workers: 2, signal: controller.signal, onProgress: () => controller.abort() });
      await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
      const resumed = await files(await gradients(root, instruct, 'cancelled', { workers: 2 }));
      for (const [file, bytes] of reference) expect(resumed.get(file)?.equals(bytes), file).toBe(true);
    } finally {
      await instruct.close();
    }
  }), 120_000);
});

describe('gradients stage key', () => {
  it('names the batch split: another --batch does not reuse the sums', () => withTempDir(async (root) => {
    const instruct = await tinyInstruct(root);
    try {
      const key = (batchSequences: number) => gradientsKey({ instruct, inputs: { instruct: { 'model.safetensors': 'h' } }, settings: { batchSequences } } as unknown as PipelineContext, { targets: 't' });
      expect(key(2)).toEqual({ targets: { targets: 't' }, instruct: { 'model.safetensors': 'h' }, batches: { sequences: 2, tokenShare: '1/8' } });
      expect(key(4)).not.toEqual(key(2));
    } finally {
      await instruct.close();
    }
  }));
});

describe('gradient worker pool', () => {
  it('reports a worker that dies, naming it and its job', async () => {
    const job: GradientJob = { ref: { set: 'reasoning', batch: 0 }, sequences: [{ ids: [1, 2, 3] }], options: {}, label: 'g_R batch 1/1' };
    const done: string[] = [];
    const run = runJobsOnWorkers([job], {
      setup: { checkpointDir: '/nowhere', backend: 'wasm', memoryBudget: 2 ** 30, shared: [] },
      workers: 1,
      sink: { onLayer: async () => undefined, onDone: async (j) => void done.push(j.label) },
      workerModule: new URL('./testing/exiting-gradient-worker.ts', import.meta.url),
    });
    await expect(run).rejects.toThrow(/^gradient worker 1 on g_R batch 1\/1 exited with code 3 before its work was done$/);
    expect(done).toEqual([]);
  }, 60_000);
});
