import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import type { LossSequence } from './layer-grads.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';

function ce(logits: Float32Array, row: number, vocab: number, label: number): number {
  const r = logits.subarray(row * vocab, (row + 1) * vocab);
  const max = Math.max(...r);
  const lse = max + Math.log(r.reduce((s, v) => s + Math.exp(v - max), 0));
  return lse - (r[label] as number);
}

describe('forward logits and masked loss', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let model: CausalLM;
  const batch: LossSequence[] = [
    { ids: [3, 9, 27, 81 % 64, 50, 2], targets: [0, 0, 1, 1, 0, 1] },
    { ids: [10, 20, 30] },
  ];

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ family: 'qwen3', tied: false, ropeParameters: true, seed: 21 });
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('per-sequence loss is the mean CE of the logits over the target tokens only', async () => {
    const before = tf.memory().numTensors;
    const scores = await model.sequenceLosses(batch);
    for (const [i, seq] of batch.entries()) {
      const ids = Array.from(seq.ids);
      const logits = await model.forwardLogits(ids);
      expect(logits.rows).toBe(ids.length);
      let sum = 0;
      let n = 0;
      for (let t = 1; t < ids.length; t++) {
        if (seq.targets !== undefined && !seq.targets[t]) continue;
        sum += ce(logits.values, t - 1, logits.vocab, ids[t] as number);
        n++;
      }
      expect(scores[i]?.targets).toBe(n);
      expect(scores[i]?.loss).toBeCloseTo(sum / n, 5);
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it('the gradient pass reports the same losses, averaged over sequences', async () => {
    const scores = (await model.sequenceLosses(batch)).map((s) => s.loss) as [number, number];
    const result = await model.lossAndLayerGrads(batch, () => undefined);
    expect(result.sequenceLosses.map((l) => l.toFixed(5))).toEqual(scores.map((l) => l.toFixed(5)));
    expect(result.loss).toBeCloseTo((scores[0] + scores[1]) / 2, 5);
    const split = await model.lossAndLayerGrads(batch.slice(0, 1), () => undefined, { sequenceCount: 2 });
    expect(split.loss).toBeCloseTo(scores[0] / 2, 5);
  });

  it('logits at chosen positions equal those rows of the full logits', async () => {
    const ids = [5, 6, 7, 8, 9];
    const full = await model.forwardLogits(ids);
    const some = await model.forwardLogits(ids, [4, 1]);
    const v = full.vocab;
    expect(Array.from(some.values.subarray(0, v))).toEqual(Array.from(full.values.subarray(4 * v, 5 * v)));
    expect(Array.from(some.values.subarray(v))).toEqual(Array.from(full.values.subarray(v, 2 * v)));
  });

  it('rejects a sequence without targets and out-of-vocabulary ids', async () => {
    await expect(model.lossAndLayerGrads([{ ids: [1, 2], targets: [1, 0] }], () => undefined)).rejects.toThrow(/sequence 0 has no loss targets/);
    await expect(model.forwardLogits([1, 64])).rejects.toThrow(/token id 64 at position 1/);
  });
});
