/**
 * The whole-model graph's cross-entropy on wasm against float64, on rows whose target is 16
 * above the rest (p_target ≈ 1 − 10⁻⁴, where tf.logSoftmax's float32 sums drop the rest of the
 * row) and on a row whose maximum is tied.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { crossEntropySum } from './cross-entropy.ts';
import { relativeError } from '../tensor/testing/relative-error.ts';

beforeAll(async () => {
  await initBackend('wasm');
});

/** Σ_r CE_r and dΣ/dz in float64, the label's entry as −Σ_{j≠label} p_j. */
function reference(logits: Float32Array, labels: readonly number[]): { loss: number; grad: Float64Array } {
  const width = logits.length / labels.length;
  const grad = new Float64Array(logits.length);
  let loss = 0;
  labels.forEach((label, r) => {
    const row = logits.subarray(r * width, (r + 1) * width);
    const max = row.reduce((m, z) => Math.max(m, z), -Infinity);
    const sum = row.reduce((s, z) => s + Math.exp(z - max), 0);
    loss += Math.log(sum) + max - (row[label] as number);
    let others = 0;
    row.forEach((z, j) => {
      if (j === label) return;
      grad[r * width + j] = Math.exp(z - max) / sum;
      others += Math.exp(z - max) / sum;
    });
    grad[r * width + label] = -others;
  });
  return { loss, grad };
}

describe('crossEntropySum (whole-model graph)', () => {
  it('loss and gradient of rows whose target dominates agree with float64 to 1e-5', () => {
    // The graph serves small models (the demo pair's 649 tokens); 151,936-token heads go through
    // head-loss.ts, whose float64 sums this float32 one (error ~√vocab·ε) cannot match there.
    const vocab = 4096;
    const rng = new SeededRandom(8);
    const labels = [5, 4000];
    const logits = new Float32Array(labels.length * vocab).map(() => rng.normal() * 0.5);
    labels.forEach((l, r) => (logits[r * vocab + l] = 16));
    const want = reference(logits, labels);
    const { value, grads } = tf.tidy(() => tf.valueAndGrads((z: tf.Tensor) => crossEntropySum(z as tf.Tensor2D, labels))([tf.tensor2d(logits, [labels.length, vocab])]));
    expect(Math.abs((value.dataSync()[0] as number) / want.loss - 1)).toBeLessThan(1e-5);
    expect(relativeError((grads[0] as tf.Tensor).dataSync(), want.grad)).toBeLessThan(1e-5);
    tf.dispose([value, ...grads]);
  });

  it('a tied maximum with a label below it, and a label that is the maximum', () => {
    const logits = Float32Array.from([3, 3, -1, 0.5, 2, -4, 7, 1]);
    const labels = [2, 2];
    const want = reference(logits, labels);
    const { value, grads } = tf.tidy(() => tf.valueAndGrads((z: tf.Tensor) => crossEntropySum(z as tf.Tensor2D, labels))([tf.tensor2d(logits, [2, 4])]));
    expect(Math.abs((value.dataSync()[0] as number) - want.loss)).toBeLessThan(1e-6);
    expect(relativeError((grads[0] as tf.Tensor).dataSync(), want.grad)).toBeLessThan(1e-6);
    tf.dispose([value, ...grads]);
  });
});
