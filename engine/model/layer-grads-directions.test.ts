/**
 * lossAndLayerGrads' headDirections against the vocab-sized head gradients of the same pass
 * (headGrads) and against central finite differences of the loss along Δ, on tiny random
 * Qwen3-shaped models (untied, tied) and looped ones (Nanbeige, untied and tied), and on a
 * 151,936-token head whose every target dominates (p_label ≈ 1, where 1 − p cancels in float32);
 * the batch's embedding rows read alone give the pass of a whole read, and lent gradient arrays
 * (lendGrads) the values of fresh ones, bit for bit.
 */
import * as tf from '@tensorflow/tfjs-core';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM } from './causal-lm.ts';
import { dot64, type HeadDirections, type StoredDirection } from './head-directions.ts';
import { HEAD_GRADS_LAYER, type LossResult, type LossSequence } from './layer-grads.ts';
import { dominantHeadModel } from './testing/dominant-head.ts';
import { withOverrides } from './testing/override-source.ts';
import { writeTinyCheckpoint, type TinyModelOptions } from './testing/tiny-checkpoint.ts';
import { EMBED_NAME, FINAL_NORM_NAME, LM_HEAD_NAME, type WeightSource } from './weights.ts';

const BATCH: LossSequence[] = [
  { ids: [5, 17, 3, 40, 22, 9, 31, 2], targets: [0, 0, 0, 1, 1, 1, 1, 1] },
  { ids: [12, 7, 44, 1, 30, 17], targets: [0, 1, 0, 1, 1, 1] },
];
const VOCAB = 48;
const HIDDEN = 16;
const SHAPE = { hidden: HIDDEN, intermediate: 24, heads: 4, kvHeads: 2, headDim: 8, vocab: VOCAB };

const CASES: { label: string; options: TinyModelOptions }[] = [
  { label: 'Qwen3, untied', options: { family: 'qwen3', tied: false, seed: 31, ...SHAPE } },
  { label: 'Qwen3, tied', options: { family: 'qwen3', tied: true, seed: 32, ...SHAPE } },
  { label: 'looped, untied', options: { family: 'llama', tied: false, seed: 33, loop: { numLoops: 2 }, ...SHAPE } },
  { label: 'looped, tied', options: { family: 'llama', tied: true, seed: 34, loop: { numLoops: 3, skipLoopFinalNorm: true }, ...SHAPE } },
];

const rng = new SeededRandom(9);
/** Rows that are tokens and labels of the batch (17 twice), one that is neither (47): a think-rows Δ's shape. */
const rowsDirection = (): StoredDirection => ({ rows: Int32Array.from([17, 40, 47]), values: rng.normals(3 * HIDDEN, 1) });
const wholeDirection = (): StoredDirection => ({ values: rng.normals(VOCAB * HIDDEN, 1) });
const DIRECTIONS: { readonly embedding: readonly StoredDirection[]; readonly lmHead: readonly StoredDirection[] } = { embedding: [rowsDirection(), wholeDirection()], lmHead: [wholeDirection(), rowsDirection()] };

function dense(d: StoredDirection): Float32Array {
  if (d.rows === undefined) return d.values;
  const out = new Float32Array(VOCAB * HIDDEN);
  d.rows.forEach((r, k) => out.set(d.values.subarray(k * HIDDEN, (k + 1) * HIDDEN), r * HIDDEN));
  return out;
}

/** θ + step·Δ for one tensor of the checkpoint. */
async function moved(checkpoint: Checkpoint, name: string, d: StoredDirection, step: number): Promise<Map<string, Float32Array>> {
  const delta = dense(d);
  return new Map([[name, (await checkpoint.readFloat32(name)).map((v, i) => v + step * (delta[i] as number))]]);
}

beforeAll(async () => {
  await initBackend('wasm');
});

describe.each(CASES)('head directions: $label', ({ options }) => {
  let dir: string;
  let checkpoint: Checkpoint;
  /** Layer −1's maps of the pass with both options, and of the pass with headDirections alone. */
  const full = new Map<string, Float32Array>();
  const alone = new Map<string, Float32Array>();
  let both: LossResult;
  let only: LossResult;
  let tensorsLeft = 0;

  beforeAll(async () => {
    dir = await writeTinyCheckpoint(options);
    checkpoint = await Checkpoint.open(dir);
    const model = loadCausalLM(checkpoint);
    const before = tf.memory().numTensors;
    const keep = (into: Map<string, Float32Array>) => (layer: number, grads: Map<string, Float32Array>) => {
      if (layer === HEAD_GRADS_LAYER) grads.forEach((g, name) => into.set(name, g));
    };
    both = await model.lossAndLayerGrads(BATCH, keep(full), { headGrads: true, headDirections: () => Promise.resolve(DIRECTIONS), headChunkRows: 3 });
    only = await model.lossAndLayerGrads(BATCH, keep(alone), { headDirections: () => Promise.resolve(DIRECTIONS) });
    tensorsLeft = tf.memory().numTensors - before;
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('dots equal those of the whole embedding and lm_head gradients, and layer −1 brings model.norm alone', () => {
    const tied = options.tied === true;
    const embedding = full.get(EMBED_NAME) as Float32Array;
    const lmHead = full.get(LM_HEAD_NAME);
    expect(lmHead === undefined).toBe(tied);
    const want = {
      embedding: DIRECTIONS.embedding.map((d) => dot64(embedding, dense(d))),
      lmHead: DIRECTIONS.lmHead.map((d) => (lmHead === undefined ? 0 : dot64(lmHead, dense(d)))),
    };
    for (const result of [both, only]) {
      const got = result.headDots;
      expect(got?.lmHead.length).toBe(2);
      for (const key of ['embedding', 'lmHead'] as const) {
        want[key].forEach((w, k) => {
          const g = got?.[key][k] as number;
          expect(Math.abs(g - w) / Math.max(Math.abs(w), 1e-3), `${key}[${k}]: ${g} vs ${w}`).toBeLessThan(1e-5);
        });
      }
    }
    if (tied) expect(both.headDots?.lmHead).toEqual([0, 0]);
    expect(only.loss).toBe(both.loss);
    expect([...alone.keys()]).toEqual([FINAL_NORM_NAME]);
    const norm = full.get(FINAL_NORM_NAME) as Float32Array;
    (alone.get(FINAL_NORM_NAME) as Float32Array).forEach((v, i) => expect(Math.abs(v - (norm[i] as number))).toBeLessThan(1e-6));
    expect(tensorsLeft).toBe(0);
  });

  it('dots agree with central finite differences of the loss along Δ', async () => {
    const eps = 2e-3;
    const lossAlong = async (name: string, d: StoredDirection, step: number): Promise<number> => {
      const scores = await loadCausalLM(withOverrides(checkpoint, await moved(checkpoint, name, d, step))).sequenceLosses(BATCH);
      return scores.reduce((a, s) => a + s.loss, 0) / scores.length;
    };
    const checks: [string, StoredDirection, number][] = DIRECTIONS.embedding.map((d, k) => [EMBED_NAME, d, only.headDots?.embedding[k] as number]);
    if (options.tied === false) DIRECTIONS.lmHead.forEach((d, k) => checks.push([LM_HEAD_NAME, d, only.headDots?.lmHead[k] as number]));
    let worst = 0;
    for (const [name, d, dot] of checks) {
      const fd = ((await lossAlong(name, d, eps)) - (await lossAlong(name, d, -eps))) / (2 * eps);
      const err = Math.abs(fd - dot) / Math.max(Math.abs(dot), 1e-2);
      worst = Math.max(worst, err);
      expect(err, `${name}: fd ${fd} vs dot ${dot}`).toBeLessThan(2e-2);
    }
    console.info(`[${options.tied === true ? 'tied' : 'untied'}${options.loop === undefined ? '' : ', looped'}] ${checks.length} directions: max relative error against finite differences ${worst.toExponential(2)}`);
  });

  it('looks the batch up in the embedding\'s rows (an untied model never reads it whole), the same bits as a whole read', async () => {
    const tied = options.tied === true;
    const wholeRead: string[] = [];
    const source = (rows: boolean): WeightSource => ({
      dir: checkpoint.dir,
      config: checkpoint.config,
      tensors: checkpoint.tensors,
      tensor: (name) => checkpoint.tensor(name),
      readFloat32: (name, into) => (rows && wholeRead.push(name), checkpoint.readFloat32(name, into)),
      ...(rows ? { readRowsFloat32: (name: string, ids: ArrayLike<number>) => checkpoint.readRowsFloat32(name, ids) } : {}),
    });
    const pass = async (rows: boolean): Promise<{ result: LossResult; grads: Float32Array[] }> => {
      const grads: Float32Array[] = [];
      const result = await loadCausalLM(source(rows)).lossAndLayerGrads(BATCH, (_layer, g) => void grads.push(...g.values()), { headDirections: () => Promise.resolve(DIRECTIONS) });
      return { result, grads };
    };
    const [rows, whole] = [await pass(true), await pass(false)];
    expect(wholeRead.includes(EMBED_NAME)).toBe(tied);
    expect(rows.result).toEqual(whole.result);
    expect(rows.grads).toEqual(whole.grads);
  });

  it('lends one array per parameter for every layer with lendGrads (a looped model: fresh ones), the values of fresh arrays', async () => {
    const model = loadCausalLM(checkpoint);
    const seen = async (lendGrads: boolean) => {
      const copies: Float32Array[] = [];
      const arrays = new Map<string, Set<ArrayBufferLike>>();
      await model.lossAndLayerGrads(BATCH, (layer, grads) => {
        if (layer === HEAD_GRADS_LAYER) return;
        for (const [name, g] of grads) {
          copies.push(g.slice());
          const key = name.replace(/^model\.layers\.\d+\./, '');
          arrays.set(key, (arrays.get(key) ?? new Set()).add(g.buffer));
        }
      }, { headDirections: () => Promise.resolve(DIRECTIONS), lendGrads });
      return { copies, arrays: [...arrays.values()].map((set) => set.size) };
    };
    const [lent, fresh] = [await seen(true), await seen(false)];
    expect(lent.copies).toEqual(fresh.copies);
    const layers = loadCausalLM(checkpoint).spec.numLayers;
    expect(layers).toBeGreaterThan(1);
    expect(fresh.arrays.every((n) => n === layers)).toBe(true);
    expect(lent.arrays.every((n) => n === (options.loop === undefined ? 1 : layers))).toBe(true);
  });

  it('refuses a direction that does not fit the embedding or lm_head, naming it', async () => {
    const model = loadCausalLM(checkpoint);
    const bad = (directions: HeadDirections) => model.lossAndLayerGrads(BATCH, () => undefined, { headDirections: () => Promise.resolve(directions) });
    await expect(bad({ embedding: [{ values: new Float32Array(5) }], lmHead: [] })).rejects.toThrow(/model\.embed_tokens\.weight: a direction of 5 values for a \[48, 16\] weight/);
    await expect(bad({ embedding: [], lmHead: [{ rows: Int32Array.from([48]), values: new Float32Array(HIDDEN) }] })).rejects.toThrow(/lm_head\.weight: direction row 48 is outside the weight's 48 rows/);
  });
});

describe('head directions on a 151,936-token head with dominant targets', () => {
  it('lm_head dots along the label rows and along a whole Δ equal the whole gradient’s to 1e-5', async () => {
    const vocab = 151_936;
    const hidden = 64;
    const model = await dominantHeadModel({ vocab, hidden, tokens: 6, margin: 20, seed: 5 });
    try {
      const labels = Int32Array.from(new Set(Array.from((model.batch[0] as LossSequence).ids).slice(1)));
      const local = new SeededRandom(4);
      const lmHead = [{ rows: labels, values: local.normals(labels.length * hidden, 1) }, { values: local.normals(vocab * hidden, 1) }];
      let whole: Float32Array = new Float32Array(0);
      const result = await loadCausalLM(model.source).lossAndLayerGrads(model.batch, (layer, grads) => {
        if (layer === HEAD_GRADS_LAYER) whole = grads.get(LM_HEAD_NAME) as Float32Array;
      }, { headGrads: true, headDirections: () => Promise.resolve({ embedding: [], lmHead }) });
      lmHead.forEach((d, k) => {
        const rows = d.rows === undefined ? undefined : Array.from(d.rows);
        const want = rows === undefined ? dot64(whole, d.values) : rows.reduce((sum, r, i) => sum + dot64(whole.subarray(r * hidden, (r + 1) * hidden), d.values.subarray(i * hidden, (i + 1) * hidden)), 0);
        const got = result.headDots?.lmHead[k] as number;
        expect(Math.abs(got - want) / Math.abs(want), `direction ${k}: ${got} vs ${want}`).toBeLessThan(1e-5);
      });
    } finally {
      await model.close();
    }
  });
});
