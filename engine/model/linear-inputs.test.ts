import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { relativeError } from '../tensor/testing/relative-error.ts';
import { initBackend } from '../tensor/backend.ts';
import type { LayerActivations } from './activations.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import { decoderLayer } from './decoder-layer.ts';
import { embedTokens } from './forward.ts';
import type { LinearInputMeans } from './linear-inputs.ts';
import { ropeTables } from './rope.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import { disposeLayer, readLayer } from './weights.ts';

/** Plain loops, row-major rows of `width`: mean over rows of |x_j|. */
function meanAbs(rows: ArrayLike<number>, width: number): Float64Array {
  const out = new Float64Array(width);
  const count = rows.length / width;
  for (let r = 0; r < count; r++) for (let j = 0; j < width; j++) out[j] = (out[j] as number) + Math.abs(rows[r * width + j] as number) / count;
  return out;
}

/** y = x·Wᵀ with W as the checkpoint stores it, [out, in]. */
function linearRows(x: ArrayLike<number>, w: Float32Array, dIn: number, dOut: number): Float64Array {
  const rows = x.length / dIn;
  const y = new Float64Array(rows * dOut);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < dOut; o++) {
      let s = 0;
      for (let i = 0; i < dIn; i++) s += (x[r * dIn + i] as number) * (w[o * dIn + i] as number);
      y[r * dOut + o] = s;
    }
  }
  return y;
}

function rmsNormRows(x: ArrayLike<number>, w: Float32Array, eps: number): Float64Array {
  const d = w.length;
  const out = new Float64Array(x.length);
  for (let r = 0; r < x.length / d; r++) {
    let ss = 0;
    for (let j = 0; j < d; j++) ss += (x[r * d + j] as number) ** 2;
    const scale = 1 / Math.sqrt(ss / d + eps);
    for (let j = 0; j < d; j++) out[r * d + j] = (w[j] as number) * (x[r * d + j] as number) * scale;
  }
  return out;
}

describe('linearInputMeans: mean |x| at every Linear input', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let model: CausalLM;
  const sequences = [[4, 8, 15, 16, 23, 42], [7, 1, 9]];
  const got: LinearInputMeans[] = [];

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ family: 'llama', seed: 5, layers: 2 });
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
    const before = tf.memory().numTensors;
    await model.linearInputMeans(sequences, (m) => { got.push(m); });
    expect(tf.memory().numTensors).toBe(before);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  const meansOf = (layer: number, sequence: number): ReadonlyMap<string, Float32Array> => {
    const m = got.find((g) => g.layer === layer && g.sequence === sequence);
    if (m === undefined) throw new Error(`no means for layer ${layer}, sequence ${sequence}`);
    return m.means;
  };

  it('names all seven projections of every layer, per sequence', () => {
    expect(got.map((g) => [g.layer, g.sequence])).toEqual([[0, 0], [0, 1], [1, 0], [1, 1]]);
    expect([...meansOf(1, 0).keys()]).toEqual(['q_proj', 'k_proj', 'v_proj', 'o_proj'].map((p) => `model.layers.1.self_attn.${p}`)
      .concat(['gate_proj', 'up_proj', 'down_proj'].map((p) => `model.layers.1.mlp.${p}`)));
    const { spec } = model;
    expect(meansOf(1, 0).get('model.layers.1.self_attn.o_proj')).toHaveLength(spec.numHeads * spec.headDim);
    expect(meansOf(1, 0).get('model.layers.1.mlp.down_proj')).toHaveLength(spec.intermediateSize);
  });

  it('q/k/v at layer 0 equal a plain-loop RMSNorm of the embedding rows', async () => {
    const { spec } = model;
    const [embed, norm] = await Promise.all([checkpoint.readFloat32('model.embed_tokens.weight'), checkpoint.readFloat32('model.layers.0.input_layernorm.weight')]);
    for (const [s, ids] of sequences.entries()) {
      const rows = ids.flatMap((id) => [...embed.subarray(id * spec.hiddenSize, (id + 1) * spec.hiddenSize)]);
      const want = meanAbs(rmsNormRows(rows, norm, spec.rmsNormEps), spec.hiddenSize);
      for (const p of ['q_proj', 'k_proj', 'v_proj']) expect(relativeError(meansOf(0, s).get(`model.layers.0.self_attn.${p}`) as Float32Array, want)).toBeLessThan(1e-5);
    }
  });

  it('gate/up and down at every layer agree with captureActivations at all positions and a plain-loop SwiGLU', async () => {
    const { spec } = model;
    const captured: LayerActivations[] = [];
    await model.captureActivations(sequences.map((ids) => ({ ids, positions: ids.map((_, i) => i) })), (a) => { captured.push(a); });
    for (const a of captured) {
      const means = meansOf(a.layer, a.sequence);
      const prefix = `model.layers.${a.layer}`;
      expect(relativeError(means.get(`${prefix}.self_attn.q_proj`) as Float32Array, meanAbs(a.attnInput, spec.hiddenSize))).toBeLessThan(1e-5);
      expect(relativeError(means.get(`${prefix}.mlp.up_proj`) as Float32Array, meanAbs(a.ffnInput, spec.hiddenSize))).toBeLessThan(1e-5);
      const [gate, up] = await Promise.all(['gate_proj', 'up_proj'].map((p) => checkpoint.readFloat32(`${prefix}.mlp.${p}.weight`)));
      const g = linearRows(a.ffnInput, gate as Float32Array, spec.hiddenSize, spec.intermediateSize);
      const u = linearRows(a.ffnInput, up as Float32Array, spec.hiddenSize, spec.intermediateSize);
      const hidden = g.map((v, i) => (v / (1 + Math.exp(-v))) * (u[i] as number));
      expect(relativeError(means.get(`${prefix}.mlp.down_proj`) as Float32Array, meanAbs(hidden, spec.intermediateSize))).toBeLessThan(1e-4);
    }
  });

  it('o_proj reads the attention context: x + context·W_oᵀ, RMS-normed, is the gate/up input', async () => {
    const { spec } = model;
    const ids = sequences[0] as number[];
    const x = embedTokens(await model.context.embedding(), ids, spec.hiddenSize);
    const layer = await readLayer(checkpoint, spec, 0);
    const [context, ffnInput] = tf.tidy(() => {
      const out = decoderLayer(spec, layer.params, tf.tensor2d(x, [ids.length, spec.hiddenSize]), ropeTables(spec, 0, ids.length));
      return [out.attnContext.dataSync(), out.ffnInput.dataSync()];
    });
    disposeLayer(layer);
    const [wo, postNorm] = await Promise.all([checkpoint.readFloat32('model.layers.0.self_attn.o_proj.weight'), checkpoint.readFloat32('model.layers.0.post_attention_layernorm.weight')]);
    const h = linearRows(context, wo, spec.numHeads * spec.headDim, spec.hiddenSize).map((v, i) => v + (x[i] as number));
    expect(relativeError(ffnInput, rmsNormRows(h, postNorm, spec.rmsNormEps))).toBeLessThan(1e-5);
    expect(relativeError(meansOf(0, 0).get('model.layers.0.self_attn.o_proj') as Float32Array, meanAbs(context, spec.numHeads * spec.headDim))).toBeLessThan(1e-5);
  });

  it('refuses an empty sequence (its mean is undefined)', async () => {
    await expect(model.linearInputMeans([[4], []], () => undefined)).rejects.toThrow(/sequence 1 is empty/);
  });
});
