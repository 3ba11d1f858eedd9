/**
 * Layer-wise gradients against (a) one whole-graph tf.grads pass and (b) central finite
 * differences, on tiny random Qwen3 (q/k norm, untied) and Qwen2 (q/k/v biases, tied) models.
 */
import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { maxRelativeError } from '../tensor/testing/relative-error.ts';
import { loadCausalLM } from './causal-lm.ts';
import { HEAD_GRADS_LAYER, type LossSequence } from './layer-grads.ts';
import { perturbed, withOverrides } from './testing/override-source.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { writeTinyCheckpoint, type TinyModelOptions } from './testing/tiny-checkpoint.ts';
import { wholeGraphGrads } from './testing/whole-graph.ts';
import type { WeightSource } from './weights.ts';

const BATCH: LossSequence[] = [
  { ids: [5, 17, 3, 40, 22, 9, 31, 2], targets: [0, 0, 0, 1, 1, 1, 1, 1] },
  { ids: [12, 7, 44, 1, 30], targets: [0, 1, 0, 1, 1] },
];

const KINDS = [
  'input_layernorm.weight', 'post_attention_layernorm.weight',
  'self_attn.q_proj.weight', 'self_attn.k_proj.weight', 'self_attn.v_proj.weight', 'self_attn.o_proj.weight',
  'mlp.gate_proj.weight', 'mlp.up_proj.weight', 'mlp.down_proj.weight',
];

function relError(a: number, b: number, floor: number): number {
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), floor);
}

const CASES: { label: string; options: TinyModelOptions; kinds: string[] }[] = [
  {
    label: 'Qwen3 (q/k norm, untied)',
    options: { family: 'qwen3', tied: false, seed: 11, hidden: 16, intermediate: 24, heads: 4, kvHeads: 2, headDim: 8, vocab: 48 },
    kinds: [...KINDS, 'self_attn.q_norm.weight', 'self_attn.k_norm.weight'],
  },
  {
    label: 'Qwen2 (q/k/v biases, tied)',
    options: { family: 'qwen2', tied: true, seed: 12, hidden: 16, intermediate: 24, heads: 4, kvHeads: 2, headDim: 4, vocab: 48 },
    kinds: [...KINDS, 'self_attn.q_proj.bias', 'self_attn.k_proj.bias', 'self_attn.v_proj.bias'],
  },
];

beforeAll(async () => {
  await initBackend('wasm');
});

describe.each(CASES)('layer-wise gradients: $label', ({ options, kinds }) => {
  let dir: string;
  let checkpoint: Checkpoint;
  const layerGrads = new Map<string, Float32Array>();
  const order: number[] = [];
  let loss = 0;

  beforeAll(async () => {
    dir = await writeTinyCheckpoint(options);
    checkpoint = await Checkpoint.open(dir);
    const model = loadCausalLM(checkpoint);
    const before = tf.memory().numTensors;
    const result = await model.lossAndLayerGrads(BATCH, (layer, grads) => {
      order.push(layer);
      for (const [name, g] of grads) layerGrads.set(name, g);
    }, { headGrads: true, headChunkRows: 2 });
    loss = result.loss;
    expect(tf.memory().numTensors).toBe(before);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports layers last-to-first, then the head gradients', () => {
    expect(order).toEqual([1, 0, HEAD_GRADS_LAYER]);
  });

  it('streams weights layer by layer and holds no tensors between layers', async () => {
    const events: string[] = [];
    const logged: WeightSource = {
      dir: checkpoint.dir, config: checkpoint.config, tensors: checkpoint.tensors, tensor: (n) => checkpoint.tensor(n),
      readFloat32: (n) => {
        const layer = /^model\.layers\.(\d+)\./.exec(n)?.[1];
        const label = layer === undefined ? `read ${n}` : `read layer ${layer}`;
        if (events.at(-1) !== label) events.push(label);
        return checkpoint.readFloat32(n);
      },
    };
    const baseline = tf.memory().numBytes;
    await loadCausalLM(logged).lossAndLayerGrads(BATCH, (layer) => {
      events.push(`grads ${layer}`);
      // Only the per-length RoPE tables stay alive across layers (a few hundred bytes here).
      expect(tf.memory().numBytes - baseline).toBeLessThan(1024);
    });
    const head = options.tied === false ? ['read model.norm.weight', 'read lm_head.weight'] : ['read model.norm.weight'];
    expect(events).toEqual([
      'read model.embed_tokens.weight', 'read layer 0', 'read layer 1', ...head,
      'read layer 1', 'grads 1', 'read layer 0', 'grads 0',
    ]);
  });

  it('agrees with one whole-graph autodiff pass', async () => {
    const model = loadCausalLM(checkpoint);
    const reference = await wholeGraphGrads(checkpoint, model.spec, BATCH);
    expect(loss).toBeCloseTo(reference.loss, 5);
    expect([...layerGrads.keys()].sort()).toEqual([...reference.grads.keys()].sort());
    let worst = 0;
    for (const [name, g] of reference.grads) worst = Math.max(worst, maxRelativeError(layerGrads.get(name) as Float32Array, g));
    console.info(`[${options.family}] whole-graph autodiff: max |Δ|/max|g| over all tensors = ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-4);
  });

  it('agrees with central finite differences on sampled coordinates of every tensor kind', async () => {
    const model = loadCausalLM(checkpoint);
    const rng = new SeededRandom(7);
    const eps = 1e-2;
    const lossWith = async (name: string, index: number, delta: number): Promise<number> => {
      const m = loadCausalLM(withOverrides(checkpoint, await perturbed(checkpoint, name, index, delta)));
      const scores = await m.sequenceLosses(BATCH);
      return scores.reduce((a, s) => a + s.loss, 0) / scores.length;
    };
    let worst = 0;
    let checked = 0;
    for (let layer = 0; layer < model.spec.numLayers; layer++) {
      for (const kind of kinds) {
        const name = `model.layers.${layer}.${kind}`;
        const g = layerGrads.get(name) as Float32Array;
        // The largest-gradient coordinate plus two random ones.
        let top = 0;
        g.forEach((v, i) => (Math.abs(v) > Math.abs(g[top] as number) ? (top = i) : 0));
        for (const index of [top, rng.int(0, g.length - 1), rng.int(0, g.length - 1)]) {
          const fd = ((await lossWith(name, index, eps)) - (await lossWith(name, index, -eps))) / (2 * eps);
          const err = relError(fd, g[index] as number, 1e-2);
          worst = Math.max(worst, err);
          checked++;
          expect(err, `${name}[${index}]: fd ${fd} vs grad ${g[index]}`).toBeLessThan(2e-2);
        }
      }
    }
    console.info(`[${options.family}] finite differences: ${checked} coordinates, max relative error ${worst.toExponential(2)}`);
  });
});
