/**
 * The chunked head's loss and gradients on the wasm backend against the float64 formulation
 * (testing/head-reference.ts): on the demo pair's tool-use sequences (g_A), on a synthetic head
 * with Qwen3's 151,936-token vocab where every target logit dominates, and on a small head cut
 * into uneven vocab and row chunks. Relative errors are ‖got − ref‖₂ / ‖ref‖₂.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';
import { disposeHead, gatherRows, headFromValues, headOnDemand, type HeadWeights } from './head.ts';
import { headLossAndGrads, headLosses } from './head-loss.ts';
import { dot64, type RowwiseDirection, type StoredDirection, type VocabDirection } from './head-directions.ts';
import type { ModelSpec } from './config.ts';
import { dominantHeadModel } from './testing/dominant-head.ts';
import { RelativeError, headPrecision } from './testing/head-precision.ts';
import { headReference } from './testing/head-reference.ts';

const DEMO_INSTRUCT = join(import.meta.dirname, '..', '..', 'assets', 'demo', 'instruct');
/** The agent (tool-use) sequences of `crane analyze` on the demo pair: ids and loss masks. */
const DEMO_AGENT = join(import.meta.dirname, 'testdata', 'demo-agent-sequences.jsonl');

beforeAll(async () => {
  await initBackend('wasm');
});

describe('head gradients against float64 on wasm', () => {
  it('g_A of the demo pair agrees to 1e-5', async () => {
    const batch = readFileSync(DEMO_AGENT, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { ids: number[]; lossMask: number[] })
      .map((s) => ({ ids: s.ids, targets: s.lossMask }));
    expect(batch.length).toBe(16);
    const checkpoint = await Checkpoint.open(DEMO_INSTRUCT);
    try {
      const precision = await headPrecision(checkpoint, batch, false);
      console.info(`[demo pair] g_A rel err ${precision.layers.toExponential(2)}, |loss − ref| ${precision.loss.toExponential(2)}`);
      expect(precision.layers).toBeLessThan(1e-5);
      expect(precision.loss).toBeLessThan(1e-6);
    } finally {
      await checkpoint.close();
    }
  });

  it('a 151,936-token head with dominant targets: layer, model.norm and lm_head gradients agree to 1e-5', async () => {
    const model = await dominantHeadModel({ vocab: 151_936, hidden: 64, tokens: 6, margin: 20, seed: 5 });
    try {
      const precision = await headPrecision(model.source, model.batch, true);
      console.info(`[V=151936] layers ${precision.layers.toExponential(2)}, model.norm ${precision.norm?.toExponential(2)}, lm_head ${precision.lmHead?.toExponential(2)}`);
      expect(precision.layers).toBeLessThan(1e-5);
      expect(precision.norm).toBeLessThan(1e-5);
      expect(precision.lmHead).toBeLessThan(1e-5);
      expect(precision.loss).toBeLessThan(1e-7);
    } finally {
      await model.close();
    }
  });
});

describe('chunked head', () => {
  const width = 8;
  const vocab = 29;
  const spec = { hiddenSize: width, rmsNormEps: 1e-6 } as ModelSpec;
  const rng = new SeededRandom(21);
  const norm = rng.normals(width, 0.1, 1);
  const stored = rng.normals(vocab * width, 1);
  const hidden = [rng.normals(5 * width, 1), rng.normals(3 * width, 1), rng.normals(4 * width, 1)];
  const sequences = [
    { hidden: hidden[0] as Float32Array, rows: [0, 1, 3], labels: [28, 0, 14] },
    { hidden: hidden[1] as Float32Array, rows: [], labels: [] },
    { hidden: hidden[2] as Float32Array, rows: [0, 2], labels: [7, 28] },
  ];
  const reference = headReference({
    hidden: Float32Array.from(sequences.flatMap((s) => s.rows.flatMap((r) => Array.from(s.hidden.subarray(r * width, (r + 1) * width))))),
    norm,
    head: stored,
    labels: sequences.flatMap((s) => s.labels),
    weights: sequences.flatMap((s) => s.rows.map(() => 0.5 / s.rows.length)),
    eps: spec.rmsNormEps,
  });
  const heads: HeadWeights[] = [];
  afterAll(() => heads.forEach(disposeHead));

  it.each([
    { vocabChunk: 29, chunkRows: 128 },
    { vocabChunk: 7, chunkRows: 2 },
    { vocabChunk: 1, chunkRows: 1 },
  ])('vocab chunks of $vocabChunk, row blocks of $chunkRows: losses and gradients equal float64', async ({ vocabChunk, chunkRows }) => {
    const head = headFromValues(norm, stored, { vocabChunk });
    heads.push(head);
    expect(head.chunks.length).toBe(Math.ceil(vocab / vocabChunk));
    const losses = await headLosses(spec, head, sequences, { chunkRows });
    expect(losses[1]).toBeNaN();
    const grads = await headLossAndGrads(spec, head, sequences, { chunkRows, scale: 0.5, lmHeadGrad: true });
    const refMeans = [reference.losses.subarray(0, 3), reference.losses.subarray(3, 5)].map((l) => l.reduce((a, b) => a + b, 0) / l.length);
    expect(Math.abs((losses[0] as number) - (refMeans[0] as number))).toBeLessThan(1e-6);
    expect(Math.abs((grads.sequenceLosses[2] as number) - (refMeans[1] as number))).toBeLessThan(1e-6);
    expect(grads.dHidden[1]).toEqual(new Float32Array(3 * width));
    const gotRows = sequences.flatMap((s, i) => s.rows.flatMap((r) => Array.from((grads.dHidden[i] as Float32Array).subarray(r * width, (r + 1) * width))));
    expect(new RelativeError().add(gotRows, reference.dHidden).value()).toBeLessThan(1e-5);
    expect(new RelativeError().add(grads.dNorm as Float32Array, reference.dNorm).value()).toBeLessThan(1e-5);
    expect(new RelativeError().add(grads.dLmHead as Float32Array, reference.dHead).value()).toBeLessThan(1e-5);
  });

  // A whole Δ, one on rows that hold labels (28, 7) and one on rows that are nobody's label.
  const whole = rng.normals(vocab * width, 1);
  const labelRows = { rows: Int32Array.from([28, 3, 7]), values: rng.normals(3 * width, 1) };
  const otherRows = { rows: Int32Array.from([20]), values: rng.normals(width, 1) };
  const directions = [{ values: whole }, labelRows, otherRows];
  const dense = (d: StoredDirection): Float32Array => {
    if (d.rows === undefined) return d.values;
    const out = new Float32Array(vocab * width);
    d.rows.forEach((r, k) => out.set(d.values.subarray(k * width, (k + 1) * width), r * width));
    return out;
  };

  it.each([
    { vocabChunk: 29, chunkRows: 128 },
    { vocabChunk: 7, chunkRows: 2 },
    { vocabChunk: 1, chunkRows: 1 },
  ])('vocab chunks of $vocabChunk, row blocks of $chunkRows: dots along directions equal float64 and the whole lm_head gradient’s, in the same pass', async ({ vocabChunk, chunkRows }) => {
    const head = headFromValues(norm, stored, { vocabChunk });
    heads.push(head);
    const grads = await headLossAndGrads(spec, head, sequences, { chunkRows, scale: 0.5, lmHeadGrad: true, directions });
    const plain = await headLossAndGrads(spec, head, sequences, { chunkRows, scale: 0.5, lmHeadGrad: false });
    expect(grads.sequenceLosses).toEqual(plain.sequenceLosses);
    expect(new RelativeError().add(grads.dNorm, plain.dNorm).value()).toBeLessThan(1e-6);
    directions.forEach((d, k) => {
      const got = grads.directionDots[k] as number;
      const want = dot64(reference.dHead, dense(d));
      const fromWhole = dot64(grads.dLmHead as Float32Array, dense(d));
      expect(Math.abs(got - want) / Math.abs(want), `direction ${k}: ${got} vs float64 ${want}`).toBeLessThan(1e-5);
      expect(Math.abs(got - fromWhole) / Math.abs(want), `direction ${k}: ${got} vs whole gradient's ${fromWhole}`).toBeLessThan(1e-5);
    });
    expect(plain.directionDots).toEqual([]);
    expect(plain.dLmHead).toBeUndefined();
  });

  // blocks of 2 and 3 rows: chunks of 7 end in a short block, and so does the short last chunk (1 row)
  it.each([
    { vocabChunk: 29, blockRows: undefined },
    { vocabChunk: 7, blockRows: undefined },
    { vocabChunk: 7, blockRows: 2 },
    { vocabChunk: 7, blockRows: 3 },
  ])('an on-demand head (vocab chunks of $vocabChunk, read blocks of $blockRows rows) gives the held head’s losses, gradients and dots bit for bit, reading each chunk once a pass', async ({ vocabChunk, blockRows }) => {
    const held = headFromValues(norm, stored, { vocabChunk });
    const reads: number[][] = [];
    const onDemand = headOnDemand(norm, vocab, vocabChunk, (ids) => {
      reads.push(Array.from(ids));
      return Promise.resolve(gatherRows(stored, Array.from(ids), width));
    }, blockRows === undefined ? undefined : blockRows * width);
    heads.push(held, onDemand);
    expect(onDemand.chunks.map((c) => [c.start, c.size, c.rows])).toEqual(held.chunks.map((c) => [c.start, c.size, undefined]));
    const options = { chunkRows: 2, scale: 0.5, lmHeadGrad: true, directions };
    expect(await headLosses(spec, onDemand, sequences, options)).toEqual(await headLosses(spec, held, sequences, options));
    reads.length = 0;
    expect(await headLossAndGrads(spec, onDemand, sequences, options)).toEqual(await headLossAndGrads(spec, held, sequences, options));
    // each chunk once (a block of rows a read), the label rows per row block, each chunk again for the lm_head gradient's second pass
    const step = blockRows ?? vocabChunk;
    const chunkIds = held.chunks.flatMap((c) => Array.from({ length: Math.ceil(c.size / step) }, (_, b) => Array.from({ length: Math.min(step, c.size - b * step) }, (_, k) => c.start + b * step + k)));
    if (blockRows !== undefined) {
      expect(chunkIds.slice(0, Math.ceil(7 / blockRows) + 1).map((ids) => ids.length)).toEqual(blockRows === 2 ? [2, 2, 2, 1, 2] : [3, 3, 1, 3]);
      expect(chunkIds.at(-1)).toEqual([28]);
    }
    expect(reads).toEqual([...chunkIds, [28, 0], [14, 7], [28], ...chunkIds]);
  });

  // The whole Δ formed by rows when read (an untied lm_head's blend Δ on the curvature workers); a row-sparse Δ stays stored (its
  // product sums its rows alone, so a rowwise form of it, zeros elsewhere, would round differently).
  it.each([
    { vocabChunk: 7, blockValues: undefined },
    { vocabChunk: 7, blockValues: 2 * width },
    { vocabChunk: 29, blockValues: 3 * width },
  ])('rowwise directions (vocab chunks of $vocabChunk, blocks of $blockValues values) give the stored ones’ loss, gradients and dots bit for bit', async ({ vocabChunk, blockValues }) => {
    const asked: number[][] = [];
    const rowwise: RowwiseDirection = {
      rowsOf: (ids) => {
        asked.push(Array.from(ids));
        return Promise.resolve(gatherRows(whole, Array.from(ids), width));
      },
    };
    const held = headFromValues(norm, stored, { vocabChunk });
    const onDemand = headOnDemand(norm, vocab, vocabChunk, (ids) => Promise.resolve(gatherRows(stored, Array.from(ids), width)), blockValues);
    heads.push(held, onDemand);
    const options = { chunkRows: 2, scale: 0.5, lmHeadGrad: false };
    const want = await headLossAndGrads(spec, held, sequences, { ...options, directions });
    expect(want.directionDots.every((dot) => dot !== 0)).toBe(true);
    expect(await headLossAndGrads(spec, held, sequences, { ...options, directions: [rowwise, labelRows, otherRows] })).toEqual(want);
    asked.length = 0;
    expect(await headLossAndGrads(spec, onDemand, sequences, { ...options, directions: [labelRows, rowwise, otherRows] })).toEqual({ ...want, directionDots: [want.directionDots[1], want.directionDots[0], want.directionDots[2]] });
    // a chunk's rows a block at a time, never more than a block at once
    const blockRows = blockValues === undefined ? vocabChunk : blockValues / width;
    expect(Math.max(...asked.map((ids) => ids.length))).toBeLessThanOrEqual(blockRows);
  });

  it('refuses a direction that does not fit lm_head', async () => {
    const head = headFromValues(norm, stored, { vocabChunk: 7 });
    heads.push(head);
    const run = (d: VocabDirection) => headLossAndGrads(spec, head, sequences, { chunkRows: 2, scale: 0.5, lmHeadGrad: false, directions: [d] });
    await expect(run({ values: new Float32Array(vocab * width - 1) })).rejects.toThrow(/lm_head: a direction of 231 values for a \[29, 8\] weight/);
    await expect(run({ rows: Int32Array.from([29]), values: new Float32Array(width) })).rejects.toThrow(/lm_head: direction row 29 is outside the weight's 29 rows/);
    await expect(run({ rows: Int32Array.from([1, 2]), values: new Float32Array(width) })).rejects.toThrow(/lm_head: a direction of 8 values on 2 rows of 8/);
  });

  it('refuses an lm_head that is not [vocab, hidden], and a vocab chunk or read block that is not a positive integer', () => {
    expect(() => headFromValues(norm, new Float32Array(width * 3 + 1))).toThrow(/is not \[vocab, 8\]/);
    expect(() => headFromValues(norm, stored, { vocabChunk: 0 })).toThrow(/vocab chunk 0 must be a positive integer/);
    expect(() => headOnDemand(norm, vocab, 2.5, () => Promise.resolve(new Float32Array()))).toThrow(/vocab chunk 2.5 must be a positive integer/);
    expect(() => headOnDemand(norm, vocab, 7, () => Promise.resolve(new Float32Array()), 0)).toThrow(/read blocks of 0 values: must be a positive integer/);
  });
});
