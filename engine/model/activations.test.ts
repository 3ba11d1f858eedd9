import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';
import type { LayerActivations } from './activations.ts';
import { decoderLayer } from './decoder-layer.ts';
import { embedTokens } from './forward.ts';
import { ropeTables } from './rope.ts';
import { writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import { readLayer } from './weights.ts';

describe('activation capture', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let model: CausalLM;
  const seqs = [
    { ids: [4, 8, 15, 16, 23, 42], positions: [0, 3, 5] },
    { ids: [7, 1, 9], positions: [2] },
    { ids: [11, 12], positions: [] },
  ];

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ family: 'llama', seed: 3, layers: 3 });
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Straightforward reference: every layer on the whole sequence, all rows kept. */
  async function reference(ids: number[]): Promise<{ attn: Float32Array; ffn: Float32Array }[]> {
    const { spec } = model;
    const out: { attn: Float32Array; ffn: Float32Array }[] = [];
    let x = tf.tensor2d(embedTokens(await model.context.embedding(), ids, spec.hiddenSize), [ids.length, spec.hiddenSize]);
    const rope = ropeTables(spec, 0, ids.length);
    for (let l = 0; l < spec.numLayers; l++) {
      const p = await readLayer(checkpoint, spec, l);
      const o = decoderLayer(spec, p.params, x, rope);
      out.push({ attn: o.attnInput.dataSync() as Float32Array, ffn: o.ffnInput.dataSync() as Float32Array });
      x = o.out;
    }
    return out;
  }

  it('streams attn/ffn inputs at the requested positions, layer by layer, and keeps nothing', async () => {
    const before = tf.memory().numTensors;
    const got: LayerActivations[] = [];
    await model.captureActivations(seqs, async (a) => {
      await Promise.resolve();
      got.push(a);
    });
    expect(tf.memory().numTensors).toBe(before);
    expect(got.map((a) => [a.layer, a.sequence])).toEqual([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]);
    const h = model.spec.hiddenSize;
    for (const a of got) {
      const seq = seqs[a.sequence] as (typeof seqs)[number];
      const ref = (await reference(seq.ids))[a.layer] as { attn: Float32Array; ffn: Float32Array };
      expect(a.attnInput).toHaveLength(seq.positions.length * h);
      seq.positions.forEach((p, i) => {
        for (let j = 0; j < h; j++) {
          expect(a.attnInput[i * h + j]).toBeCloseTo(ref.attn[p * h + j] as number, 5);
          expect(a.ffnInput[i * h + j]).toBeCloseTo(ref.ffn[p * h + j] as number, 5);
        }
      });
    }
  });

  it('can stop after the first layers and rejects positions outside a sequence', async () => {
    const layers: number[] = [];
    await model.captureActivations(seqs.slice(0, 1), (a) => void layers.push(a.layer), { layers: 2 });
    expect(layers).toEqual([0, 1]);
    await expect(model.captureActivations([{ ids: [1, 2], positions: [2] }], () => undefined)).rejects.toThrow(/position 2 is outside 0…1/);
  });
});
