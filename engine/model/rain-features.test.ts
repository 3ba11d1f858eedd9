import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import type { LayerActivations } from './activations.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import { captureRainFeatures, type RainLayerCapture } from './rain-features.ts';
import { decoderLayer } from './decoder-layer.ts';
import { embedTokens } from './forward.ts';
import { ropeTables } from './rope.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import { readLayer } from './weights.ts';

describe('captureRainFeatures: attention input and per-head attention rows', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let model: CausalLM;
  const ids = [4, 8, 15, 16, 23, 42, 7];
  const got: RainLayerCapture[] = [];

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ seed: 11, layers: 3 });
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
    const before = tf.memory().numTensors;
    await captureRainFeatures(model.context, ids, [2, 0], (c) => { got.push(c); });
    expect(tf.memory().numTensors).toBe(before);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('streams the chosen layers in order, with X equal to captureActivations at every position', async () => {
    expect(got.map((c) => c.layer)).toEqual([0, 2]);
    const captured: LayerActivations[] = [];
    await model.captureActivations([{ ids, positions: ids.map((_, i) => i) }], (a) => { captured.push(a); });
    for (const c of got) {
      const reference = captured.find((a) => a.layer === c.layer)?.attnInput;
      expect(Array.from(c.inputs)).toEqual(Array.from(reference ?? []));
    }
  });

  it('gives causal softmax rows whose weighted V rows (query head h → kv head ⌊h/group⌋) are the attention context', async () => {
    const { spec } = model;
    const t = ids.length;
    const d = spec.headDim;
    const group = spec.numHeads / spec.numKvHeads;
    expect(group).toBeGreaterThan(1);
    const layer0 = got[0] as RainLayerCapture;
    const wv = await checkpoint.readFloat32('model.layers.0.self_attn.v_proj.weight');
    const x = embedTokens(await model.context.embedding(), ids, spec.hiddenSize);
    const weights = await readLayer(checkpoint, spec, 0);
    const context = decoderLayer(spec, weights.params, tf.tensor2d(x, [t, spec.hiddenSize]), ropeTables(spec, 0, t)).attnContext.dataSync();
    for (let h = 0; h < spec.numHeads; h++) {
      const a = layer0.attention(h);
      const kv = Math.floor(h / group);
      for (let i = 0; i < t; i++) {
        expect(a.subarray(i * t, (i + 1) * t).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 5);
        for (let j = i + 1; j < t; j++) expect(a[i * t + j]).toBe(0);
        for (let b = 0; b < d; b++) {
          let sum = 0;
          for (let tau = 0; tau < t; tau++) {
            let v = 0;
            for (let c = 0; c < spec.hiddenSize; c++) v += (layer0.inputs[tau * spec.hiddenSize + c] as number) * (wv[(kv * d + b) * spec.hiddenSize + c] as number);
            sum += (a[i * t + tau] as number) * v;
          }
          expect(sum).toBeCloseTo(context[i * spec.numHeads * d + h * d + b] as number, 4);
        }
      }
    }
    expect(() => layer0.attention(spec.numHeads)).toThrow(/head 4 is outside|is outside/);
  });

  it('refuses an empty prompt and a layer outside the model', async () => {
    await expect(captureRainFeatures(model.context, [], [0], () => undefined)).rejects.toThrow(/prompt is empty/);
    await expect(captureRainFeatures(model.context, ids, [3], () => undefined)).rejects.toThrow(/layer 3 is outside 0…2/);
  });
});
