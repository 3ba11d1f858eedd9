/**
 * The row-chunked SwiGLU MLP against the plain tfjs expression under tf.grads (what the
 * unchunked path differentiates): output and the gradient of every input — x, the three weights
 * (as stored, [out, in]) and their biases — for chunks that do and do not divide T. Then a whole tiny model whose MLP is wide enough that the smallest memory budget
 * forces several row chunks: its loss and every parameter gradient against the whole-graph
 * autodiff pass (no chunks anywhere) and against the same backward at a budget with one chunk.
 */
import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { maxRelativeError } from '../tensor/testing/relative-error.ts';
import { loadCausalLM } from './causal-lm.ts';
import { chunkedSwiglu, type MlpWeights } from './chunked-mlp.ts';
import type { LossSequence } from './layer-grads.ts';
import { DEFAULT_MEMORY_BUDGET, mlpRowChunk, planMemory, setMemoryBudget } from './memory-plan.ts';
import { swigluHidden } from './ops.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import { wholeGraphGrads } from './testing/whole-graph.ts';

const MiB = 1024 ** 2;

beforeAll(async () => {
  await initBackend('wasm');
});

describe('chunkedSwiglu', () => {
  const [t, hidden, inner] = [11, 6, 10];
  const random = new SeededRandom(5);
  const values = {
    x: random.normals(t * hidden, 1), dy: random.normals(t * hidden, 1),
    gate: random.normals(hidden * inner, 0.5), up: random.normals(hidden * inner, 0.5), down: random.normals(inner * hidden, 0.5),
    gateBias: random.normals(inner, 0.2), upBias: random.normals(inner, 0.2), downBias: random.normals(hidden, 0.2),
  };
  const names = ['x', 'gate', 'up', 'down', 'gateBias', 'upBias', 'downBias'] as const;
  const shapes: Record<(typeof names)[number], number[]> = {
    x: [t, hidden], gate: [inner, hidden], up: [inner, hidden], down: [hidden, inner], gateBias: [inner], upBias: [inner], downBias: [hidden],
  };

  /** Output and gradients of Σ dy ∘ mlp(x) with respect to every input, as plain arrays. */
  function run(mlp: (x: tf.Tensor2D, w: MlpWeights) => tf.Tensor2D): { out: Float32Array; grads: Float32Array[] } {
    return tf.tidy(() => {
      const inputs = names.map((n) => tf.tensor(values[n], shapes[n]));
      const dy = tf.tensor2d(values.dy, [t, hidden]);
      const f = (...ps: tf.Tensor[]): tf.Tensor => {
        const [x, gate, up, down, gateBias, upBias, downBias] = ps as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor1D, tf.Tensor1D, tf.Tensor1D];
        return mlp(x, { gate, up, down, gateBias, upBias, downBias });
      };
      const out = f(...inputs).dataSync() as Float32Array;
      return { out, grads: tf.grads(f)(inputs, dy).map((g) => g.dataSync() as Float32Array) };
    });
  }

  let plain: { out: Float32Array; grads: Float32Array[] };
  beforeAll(() => {
    plain = run((x, w) => {
      // Autodiff of x·Wᵀ + b with tfjs's own transposeB flag: independent of ops.ts linear.
      const linear = (input: tf.Tensor2D, weight: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor2D => tf.add(tf.matMul(input, weight, false, true), bias as tf.Tensor1D);
      return linear(swigluHidden(x, (name, input) => (name === 'gate_proj' ? linear(input, w.gate, w.gateBias) : linear(input, w.up, w.upBias))), w.down, w.downBias);
    });
  });

  it.each([1, 4, 11, 16])('matches the unchunked expression with %i rows per chunk', (rows) => {
    const chunked = run((x, w) => chunkedSwiglu(x, w, rows));
    expect(maxRelativeError(chunked.out, plain.out)).toBeLessThan(1e-6);
    names.forEach((name, i) => expect(maxRelativeError(chunked.grads[i] as Float32Array, plain.grads[i] as Float32Array), name).toBeLessThan(1e-6));
  });

  it('leaves nothing in tfjs memory and refuses a chunk that is not a positive integer', () => {
    const before = tf.memory().numTensors;
    run((x, w) => chunkedSwiglu(x, w, 3));
    expect(tf.memory().numTensors).toBe(before);
    expect(() => tf.tidy(() => chunkedSwiglu(tf.zeros([2, hidden]), { gate: tf.zeros([inner, hidden]), up: tf.zeros([inner, hidden]), down: tf.zeros([hidden, inner]) }, 0)))
      .toThrow(/MLP row chunk 0 must be a positive integer/);
  });
});

describe('a tiny model whose MLP the smallest budget splits into row chunks', () => {
  // 16 live rows of 32,768 floats fill an eighth of 256 MiB: 16 token rows per chunk.
  const options = { family: 'qwen3' as const, tied: false, seed: 21, hidden: 16, intermediate: 32_768, heads: 4, kvHeads: 2, headDim: 8, vocab: 48, std: 0.05 };
  const ids = Array.from({ length: 40 }, (_, i) => (i * 11 + 3) % 48);
  const batch: LossSequence[] = [{ ids, targets: ids.map((_, i) => (i >= 4 ? 1 : 0)) }, { ids: ids.slice(0, 23) }];
  let dir: string;
  let checkpoint: Checkpoint;

  beforeAll(async () => {
    dir = await writeTinyCheckpoint(options);
    checkpoint = await Checkpoint.open(dir);
  });

  afterAll(async () => {
    setMemoryBudget(DEFAULT_MEMORY_BUDGET);
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function layerGrads(budget: number): Promise<{ loss: number; grads: Map<string, Float32Array> }> {
    setMemoryBudget(budget);
    const grads = new Map<string, Float32Array>();
    const { loss } = await loadCausalLM(checkpoint).lossAndLayerGrads(batch, (_layer, g) => {
      for (const [name, values] of g) grads.set(name, values);
    });
    return { loss, grads };
  }

  it('gives the whole-graph loss and every layer gradient, chunked or not', async () => {
    const spec = loadCausalLM(checkpoint).spec;
    expect(mlpRowChunk(planMemory(spec, 256 * MiB), options.intermediate, 40)).toBe(16);
    expect(mlpRowChunk(planMemory(spec, 4096 * MiB), options.intermediate, 40)).toBe(40);
    const chunked = await layerGrads(256 * MiB);
    const whole = await layerGrads(4096 * MiB);
    const reference = await wholeGraphGrads(checkpoint, spec, batch);
    expect(chunked.loss).toBeCloseTo(reference.loss, 5);
    expect(chunked.grads.size).toBe(2 * 11);
    for (const [name, g] of chunked.grads) {
      expect(maxRelativeError(g, reference.grads.get(name) as Float32Array), name).toBeLessThan(1e-5);
      expect(maxRelativeError(g, whole.grads.get(name) as Float32Array), name).toBeLessThan(1e-5);
    }
  });
});
