/** Each registered gradient against central finite differences on small random inputs. */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.ts';

type Fn = (...xs: tf.Tensor[]) => tf.Tensor;

function seeded(shape: number[], seed: number, positive = false): tf.Tensor {
  const t = tf.randomUniform(shape, positive ? 0.5 : -1, positive ? 1.5 : 1, 'float32', seed);
  return t;
}

/** Max relative error between tf.grads and central differences of sum(f(xs)·w) for a fixed random w. */
function check(f: Fn, inputs: tf.Tensor[]): number {
  const out = f(...inputs);
  const w = tf.randomUniform(out.shape, -1, 1, 'float32', 99);
  const objective = (...xs: tf.Tensor[]): tf.Scalar => tf.sum(tf.mul(f(...xs), w));
  const grads = tf.grads(objective)(inputs);
  const eps = 1e-2;
  let worst = 0;
  inputs.forEach((x, k) => {
    const base = x.dataSync();
    const g = (grads[k] as tf.Tensor).dataSync();
    for (let i = 0; i < base.length; i++) {
      const at = (delta: number): number => {
        const v = Float32Array.from(base);
        v[i] = (v[i] as number) + delta;
        const xs = inputs.map((t, j) => (j === k ? tf.tensor(v, x.shape) : t));
        return objective(...xs).dataSync()[0] as number;
      };
      const fd = (at(eps) - at(-eps)) / (2 * eps);
      worst = Math.max(worst, Math.abs(fd - (g[i] as number)) / Math.max(1e-2, Math.abs(fd), Math.abs(g[i] as number)));
    }
  });
  return worst;
}

const CASES: [string, Fn, () => tf.Tensor[]][] = [
  ['add (broadcast)', (a, b) => tf.add(a as tf.Tensor, b as tf.Tensor), () => [seeded([2, 3], 1), seeded([3], 2)]],
  ['sub (broadcast)', (a, b) => tf.sub(a as tf.Tensor, b as tf.Tensor), () => [seeded([2, 1], 1), seeded([2, 3], 2)]],
  ['mul (broadcast)', (a, b) => tf.mul(a as tf.Tensor, b as tf.Tensor), () => [seeded([2, 3, 2], 1), seeded([3, 1], 2)]],
  ['div (broadcast)', (a, b) => tf.div(a as tf.Tensor, b as tf.Tensor), () => [seeded([2, 3], 1), seeded([3], 2, true)]],
  ['neg, square, exp, sigmoid', (a) => tf.sigmoid(tf.exp(tf.square(tf.neg(a as tf.Tensor)))), () => [seeded([5], 3)]],
  ['rsqrt, sqrt', (a) => tf.add(tf.rsqrt(a as tf.Tensor), tf.sqrt(a as tf.Tensor)), () => [seeded([4], 3, true)]],
  ['sum, mean (keepDims)', (a) => tf.add(tf.sum(a as tf.Tensor, [1], true), tf.mean(a as tf.Tensor, -1, true)), () => [seeded([2, 3, 4], 4)]],
  ['sum (all)', (a) => tf.sum(a as tf.Tensor), () => [seeded([2, 3], 4)]],
  ['matMul', (a, b) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D), () => [seeded([2, 3], 5), seeded([3, 4], 6)]],
  ['matMul transposeB', (a, b) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D, false, true), () => [seeded([2, 3], 5), seeded([4, 3], 6)]],
  ['matMul transposeA', (a, b) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D, true, false), () => [seeded([3, 2], 5), seeded([3, 4], 6)]],
  ['matMul both', (a, b) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D, true, true), () => [seeded([3, 2], 5), seeded([4, 3], 6)]],
  ['batched matMul', (a, b) => tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D, false, true), () => [seeded([2, 3, 4], 5), seeded([2, 5, 4], 6)]],
  ['reshape, transpose', (a) => tf.transpose(tf.reshape(a as tf.Tensor, [2, 3, 2]), [2, 0, 1]), () => [seeded([3, 4], 7)]],
  ['split, concat', (a) => { const [x, y] = tf.split(a as tf.Tensor, 2, -1) as [tf.Tensor, tf.Tensor]; return tf.concat([tf.mul(y, 2), x], -1); }, () => [seeded([3, 4], 8)]],
  // One part: tfjs hands a single-output kernel's gradient over as one tensor, not an array (one KV head splits so).
  ['split into one part', (a) => tf.mul((tf.split(a as tf.Tensor, 1, -1) as [tf.Tensor])[0], 3), () => [seeded([3, 4], 8)]],
  ['softmax', (a) => tf.softmax(a as tf.Tensor), () => [seeded([2, 5], 9)]],
  ['logSoftmax', (a) => tf.logSoftmax(a as tf.Tensor), () => [seeded([2, 5], 9)]],
  ['addN', (a, b) => tf.addN([a as tf.Tensor, b as tf.Tensor, a as tf.Tensor]), () => [seeded([3], 10), seeded([3], 11)]],
];

describe('registered gradients', () => {
  beforeAll(async () => {
    // initBackend registers them (gradients.ts has no import side effect).
    await initBackend('wasm');
  });

  it.each(CASES)('%s agrees with finite differences', (_label, f, make) => {
    const before = tf.memory().numTensors;
    const err = tf.tidy(() => check(f, make()));
    expect(err).toBeLessThan(1e-2);
    expect(tf.memory().numTensors).toBe(before);
  });
});
