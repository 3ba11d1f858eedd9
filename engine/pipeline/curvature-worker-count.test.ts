/**
 * The curvature stage's default worker count on tiny checkpoints, tied and untied: memory fits
 * exactly k passes when the free bytes are k passes plus, when tied, the head held once for every
 * worker, a pass being a gradient worker's bytes plus the pass's own copy of a tied head, or for an
 * untied lm_head one block of its blend Δ formed by rows (θ_I's and θ_T's rows, 2^20 values each)
 * and the head dots' [256, hidden] sums; one byte less fits k − 1.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { curvatureWorkerCount } from './curvature-workers.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { gradientWorkerBytes, gradientWorkShape } from './worker-count.ts';

const VOCAB = 4096;
const HIDDEN = 64;
/** 8 × 2,048 tokens: past MIN_PARALLEL_FLOPS at this head size, so memory and cores decide. */
const BATCHES: LossSequence[][] = [Array.from({ length: 8 }, () => ({ ids: new Int32Array(2048) }))];
const PASSES = 100;
const CORES = 64;

const checkpoints = new Map<boolean, Checkpoint>();
beforeAll(async () => {
  for (const tied of [false, true]) {
    const dir = await writeTinyCheckpoint({ family: 'qwen3', tied, seed: 7, hidden: HIDDEN, intermediate: 32, heads: 4, kvHeads: 2, headDim: 16, vocab: VOCAB, layers: 2 });
    checkpoints.set(tied, await Checkpoint.open(dir));
  }
});
afterAll(async () => {
  for (const checkpoint of checkpoints.values()) {
    await checkpoint.close();
    await rm(checkpoint.dir, { recursive: true, force: true });
  }
});

describe('default curvature worker count', () => {
  it.each([{ tied: false }, { tied: true }])('tied $tied: k passes and what is shared fit k workers, a byte less k − 1', ({ tied }) => {
    const instruct = checkpoints.get(tied) as Checkpoint;
    const ctx = { instruct, settings: {} } as Pick<PipelineContext, 'instruct' | 'settings'>;
    const vocabBytes = VOCAB * HIDDEN * 4;
    const passBytes = gradientWorkerBytes(gradientWorkShape(instruct, BATCHES)) + (tied ? vocabBytes : (2 * 2 ** 20 + 256 * HIDDEN) * 4);
    const shared = tied ? vocabBytes : 0;
    const count = (freeBytes: number) => curvatureWorkerCount(ctx, BATCHES, PASSES, { cores: CORES, freeBytes });
    expect(count(2 ** 50)).toBe(CORES);
    for (const k of [2, 3, 5]) {
      expect(count(k * passBytes + shared)).toBe(k);
      expect(count(k * passBytes + shared - 1)).toBe(k - 1);
    }
  });
});
