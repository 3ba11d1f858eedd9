/**
 * Chunked causal attention against a float64 reference written as plain loops (whole score
 * matrices, no chunks): outputs, softmax weights, and gradients of q, k and v against central
 * finite differences of that reference — for chunk sizes that do and do not divide T, with and
 * without earlier (cached) keys.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { causalAttention } from './chunked-attention.ts';

beforeAll(async () => {
  await initBackend('wasm');
});

interface Case {
  readonly t: number;
  readonly past: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly d: number;
}

interface Inputs {
  readonly q: Float64Array;
  readonly k: Float64Array;
  readonly v: Float64Array;
}

const CASE: Case = { t: 7, past: 0, heads: 4, kvHeads: 2, d: 4 };
const CACHED: Case = { t: 5, past: 3, heads: 6, kvHeads: 2, d: 4 };

function inputs(c: Case, seed: number): Inputs {
  const random = new SeededRandom(seed);
  const keys = c.past + c.t;
  return { q: Float64Array.from(random.normals(c.t * c.heads * c.d, 1)), k: Float64Array.from(random.normals(c.kvHeads * keys * c.d, 1)), v: Float64Array.from(random.normals(c.kvHeads * keys * c.d, 1)) };
}

/** Softmax weights p[head][i][j] and context [T, heads·d], float64, query i at position past+i. */
function reference(c: Case, { q, k, v }: Inputs): { probs: number[][][]; context: Float64Array } {
  const keys = c.past + c.t;
  const group = c.heads / c.kvHeads;
  const context = new Float64Array(c.t * c.heads * c.d);
  const probs: number[][][] = [];
  for (let h = 0; h < c.heads; h++) {
    const kv = Math.floor(h / group);
    const rows: number[][] = [];
    for (let i = 0; i < c.t; i++) {
      const scores = Array.from({ length: keys }, (_, j) => {
        if (j > c.past + i) return -Infinity;
        let dot = 0;
        for (let e = 0; e < c.d; e++) dot += (q[(i * c.heads + h) * c.d + e] as number) * (k[(kv * keys + j) * c.d + e] as number);
        return dot / Math.sqrt(c.d);
      });
      const max = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - max));
      const total = exps.reduce((a, b) => a + b, 0);
      const p = exps.map((x) => x / total);
      rows.push(p);
      for (let e = 0; e < c.d; e++) {
        let sum = 0;
        p.forEach((pj, j) => (sum += pj * (v[(kv * keys + j) * c.d + e] as number)));
        context[(i * c.heads + h) * c.d + e] = sum;
      }
    }
    probs.push(rows);
  }
  return { probs, context };
}

function tensors(c: Case, x: Inputs): [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D] {
  const keys = c.past + c.t;
  return [tf.tensor3d(Float32Array.from(x.q), [c.t, c.heads, c.d]), tf.tensor3d(Float32Array.from(x.k), [c.kvHeads, keys, c.d]), tf.tensor3d(Float32Array.from(x.v), [c.kvHeads, keys, c.d])];
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}

describe('causalAttention in query chunks', () => {
  it.each([
    { c: CASE, chunk: 7 },
    { c: CASE, chunk: 3 },
    { c: CASE, chunk: 1 },
    { c: CACHED, chunk: 2 },
    { c: CACHED, chunk: 5 },
  ])('context and softmax weights equal the float64 whole-matrix reference (T $c.t, past $c.past, chunk $chunk)', ({ c, chunk }) => {
    const x = inputs(c, 11);
    const ref = reference(c, x);
    const group = c.heads / c.kvHeads;
    const before = tf.memory().numTensors;
    tf.tidy(() => {
      const attention = causalAttention(...tensors(c, x), chunk);
      expect(attention.context.shape).toEqual([c.t, c.heads * c.d]);
      expect(maxAbsDiff(attention.context.dataSync(), ref.context)).toBeLessThan(1e-5);
      attention.probs().forEach((p, kv) => {
        expect(p.shape).toEqual([group, c.t, c.past + c.t]);
        const values = p.dataSync();
        for (let g = 0; g < group; g++) {
          const expected = (ref.probs[kv * group + g] as number[][]).flat();
          expect(maxAbsDiff(values.subarray(g * expected.length, (g + 1) * expected.length), expected)).toBeLessThan(1e-6);
        }
      });
    });
    expect(tf.memory().numTensors).toBe(before);
  });

  it.each([
    { c: CASE, chunk: 3 },
    { c: CACHED, chunk: 2 },
  ])('gradients of q, k and v agree with float64 central differences (T $c.t, past $c.past, chunk $chunk)', ({ c, chunk }) => {
    const x = inputs(c, 23);
    const weights = new SeededRandom(5).normals(c.t * c.heads * c.d, 1);
    const objective = (y: Inputs): number => reference(c, y).context.reduce((sum, value, i) => sum + value * (weights[i] as number), 0);
    const grads = tf.tidy(() => {
      const w = tf.tensor2d(weights, [c.t, c.heads * c.d]);
      const f = (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor): tf.Tensor => tf.sum(tf.mul(causalAttention(q as tf.Tensor3D, k as tf.Tensor3D, v as tf.Tensor3D, chunk).context, w));
      return tf.grads(f)(tensors(c, x)).map((g) => g.dataSync());
    });
    const step = 1e-5;
    (['q', 'k', 'v'] as const).forEach((name, which) => {
      const analytic = grads[which] as tf.TypedArray;
      expect(analytic.length).toBe(x[name].length);
      let worst = 0;
      let scale = 0;
      for (let i = 0; i < analytic.length; i++) {
        const shifted = (delta: number): Inputs => {
          const values = Float64Array.from(x[name]);
          values[i] = (values[i] as number) + delta;
          return { ...x, [name]: values };
        };
        const numeric = (objective(shifted(step)) - objective(shifted(-step))) / (2 * step);
        worst = Math.max(worst, Math.abs((analytic[i] as number) - numeric));
        scale = Math.max(scale, Math.abs(numeric));
      }
      expect(scale).toBeGreaterThan(0.1);
      expect(worst / scale).toBeLessThan(1e-4);
    });
  });

  it('refuses a query chunk that is not a positive integer', () => {
    tf.tidy(() => {
      expect(() => causalAttention(...tensors(CASE, inputs(CASE, 1)), 0)).toThrow(/attention query chunk 0 must be a positive integer/);
    });
  });
});
