/**
 * The MoE block's hand-written expert backward against plain autodiff of the dense formulation
 * out = Σ_e w[:, e] · SwiGLU_e(f) over ALL experts (w = 0 where not routed), which is the same
 * function: so every gradient (input, router, each expert) must agree, and an expert no token
 * chose must get exactly zero.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { moeBlock } from './moe-block.ts';
import type { MoeSpec } from './moe-config.ts';
import { expertRows, routeTokens, selectionMask } from './moe-routing.ts';
import { EXPERT_PROJECTIONS, ROUTER_KEY, expertKey } from './moe-weights.ts';

const HIDDEN = 12;

/** The single value of a scalar-producing expression. */
const scalar = (t: tf.Tensor): number => t.dataSync()[0] as number;
const INNER = 5;

beforeAll(async () => {
  await initBackend('wasm');
});

function randomCase(moe: MoeSpec, tokens: number, seed: number): { keys: string[]; values: tf.Tensor[]; f: tf.Tensor2D; probe: tf.Tensor2D } {
  const rng = new SeededRandom(seed);
  const keys = [ROUTER_KEY];
  const values: tf.Tensor[] = [tf.tensor2d(rng.normals(HIDDEN * moe.numExperts, 0.8), [HIDDEN, moe.numExperts])];
  for (let e = 0; e < moe.numExperts; e++) {
    for (const projection of EXPERT_PROJECTIONS) {
      keys.push(expertKey(e, projection));
      const shape: [number, number] = projection === 'down_proj' ? [INNER, HIDDEN] : [HIDDEN, INNER];
      values.push(tf.tensor2d(rng.normals(HIDDEN * INNER, 0.4), shape));
    }
  }
  return { keys, values, f: tf.tensor2d(rng.normals(tokens * HIDDEN, 1), [tokens, HIDDEN]), probe: tf.tensor2d(rng.normals(tokens * HIDDEN, 1), [tokens, HIDDEN]) };
}

/** Σ probe · out for the block as the runtime computes it, and for the dense formulation. */
function objectives(moe: MoeSpec, keys: readonly string[], probe: tf.Tensor2D) {
  const named = (ps: tf.Tensor[]) => Object.fromEntries(keys.map((k, i) => [k, ps[i] as tf.Tensor]));
  const runtime = (f: tf.Tensor, ...ps: tf.Tensor[]): tf.Scalar => tf.sum(tf.mul(moeBlock(moe, named(ps), f as tf.Tensor2D).out, probe));
  const dense = (f: tf.Tensor, ...ps: tf.Tensor[]): tf.Scalar => {
    const p = named(ps);
    const x = f as tf.Tensor2D;
    const probs = tf.softmax<tf.Tensor2D>(tf.matMul(x, p[ROUTER_KEY] as tf.Tensor2D));
    const routing = routeTokens(probs.dataSync() as Float32Array, x.shape[0], moe);
    let w = tf.mul<tf.Tensor2D>(probs, tf.tensor2d(selectionMask(routing), probs.shape));
    if (moe.normTopkProb) w = tf.div<tf.Tensor2D>(w, tf.sum(w, -1, true));
    const terms = Array.from({ length: moe.numExperts }, (_, e) => {
      const g = tf.matMul(x, p[expertKey(e, 'gate_proj')] as tf.Tensor2D);
      const hidden = tf.mul(tf.mul(g, tf.sigmoid(g)), tf.matMul(x, p[expertKey(e, 'up_proj')] as tf.Tensor2D));
      const pick = tf.tensor2d(Array.from({ length: moe.numExperts }, (_, j) => (j === e ? 1 : 0)), [moe.numExperts, 1]);
      const column = tf.matMul(w, pick);
      return tf.mul(column, tf.matMul(hidden as tf.Tensor2D, p[expertKey(e, 'down_proj')] as tf.Tensor2D));
    });
    return tf.sum(tf.mul(tf.addN(terms), probe));
  };
  return { runtime, dense };
}

describe('moeBlock gradients', () => {
  for (const normTopkProb of [true, false]) {
    it(`match autodiff of the dense formulation (norm_topk_prob ${normTopkProb}) and the value agrees`, () => {
      const moe: MoeSpec = { numExperts: 5, expertsPerToken: 2, normTopkProb, expertIntermediateSize: INNER, mlpOnlyLayers: [], decoderSparseStep: 1 };
      tf.tidy(() => {
        const { keys, values, f, probe } = randomCase(moe, 9, normTopkProb ? 3 : 4);
        const { runtime, dense } = objectives(moe, keys, probe);
        expect(Math.abs(scalar(runtime(f, ...values)) - scalar(dense(f, ...values)))).toBeLessThan(1e-4);
        const got = tf.grads(runtime)([f, ...values]);
        const want = tf.grads(dense)([f, ...values]);
        ['input', ...keys].forEach((name, i) => {
          const scale = Math.max(1e-3, scalar(tf.max(tf.abs(want[i] as tf.Tensor))));
          const diff = scalar(tf.max(tf.abs(tf.sub(got[i] as tf.Tensor, want[i] as tf.Tensor))));
          expect(diff / scale, name).toBeLessThan(1e-5);
        });
        expect(scalar(tf.max(tf.abs(got[1] as tf.Tensor))), 'the router has a gradient of its own').toBeGreaterThan(1e-3);
      });
    });
  }

  it('gives an expert no token chose an exact zero gradient, and routed experts a non-zero one', () => {
    const moe: MoeSpec = { numExperts: 6, expertsPerToken: 1, normTopkProb: false, expertIntermediateSize: INNER, mlpOnlyLayers: [], decoderSparseStep: 1 };
    tf.tidy(() => {
      const { keys, values, f, probe } = randomCase(moe, 3, 7);
      const routing = routeTokens(tf.softmax(tf.matMul(f, values[0] as tf.Tensor2D)).dataSync() as Float32Array, 3, moe);
      const used = new Set(expertRows(routing).tokensOf.flatMap((tokens, e) => (tokens.length > 0 ? [e] : [])));
      expect(used.size).toBeLessThan(moe.numExperts);
      const grads = tf.grads(objectives(moe, keys, probe).runtime)([f, ...values]);
      keys.forEach((key, i) => {
        const expert = /^mlp\.experts\.(\d+)\./.exec(key)?.[1];
        if (expert === undefined) return;
        const largest = scalar(tf.max(tf.abs(grads[i + 1] as tf.Tensor)));
        if (used.has(Number(expert))) expect(largest, key).toBeGreaterThan(0);
        else expect(largest, key).toBe(0);
      });
    });
  });
});

describe('routeTokens / expertRows', () => {
  it('takes the k most probable experts (ties to the lower index) and stacks rows expert by expert', () => {
    const moe: MoeSpec = { numExperts: 4, expertsPerToken: 2, normTopkProb: true, expertIntermediateSize: 1, mlpOnlyLayers: [], decoderSparseStep: 1 };
    const routing = routeTokens(Float32Array.from([0.1, 0.4, 0.4, 0.1, 0.7, 0.1, 0.05, 0.15]), 2, moe);
    expect(Array.from(routing.experts)).toEqual([1, 2, 0, 3]);
    const rows = expertRows(routing);
    expect(rows.tokensOf.map((t) => Array.from(t))).toEqual([[1], [0], [0], [1]]);
    expect(Array.from(rows.rowOf)).toEqual([1, 2, 0, 3]);
  });
});
