/**
 * The masked causal-LM loss of a batch through the chunked head, and its gradient.
 *
 * Loss of one sequence = mean over its target tokens t (t ≥ 1) of CE(logits[t−1], ids[t]). Only
 * the rows t−1 that predict a target go through the head, gathered across the batch into blocks
 * of `chunkRows`. The loop is vocab-major: each lm_head chunk is uploaded once and meets every
 * row block, so the logits in memory are one [vocab chunk, chunkRows] product, read where the
 * backend wrote it (heap-values.ts) in the vocab-major layout it comes out in. The logits
 * (rows · normedᵀ) and the backward's exps · W both multiply the chunk's stored rows, so the
 * head is never transposed. ChunkedCrossEntropy accumulates in float64 and gives loss and
 * d/d normed rows in ONE pass (issue 14: at 1 × 64 tokens the second pass, which recomputed
 * every chunk's logits, was a third of the head's matmuls); only a whole lm_head gradient takes a
 * second pass, since it needs every row's final softmax sum. Dots of that gradient with given
 * directions need no second pass (head-directions.ts): each Δ's product rides beside W's.
 */
import * as tf from '@tensorflow/tfjs-core';
import { ChunkedCrossEntropy } from '../tensor/chunked-cross-entropy.ts';
import type { ModelSpec } from './config.ts';
import { withHeapValues } from '../tensor/heap-values.ts';
import { accumulate, gatherRows, headRows, vocabMajorLogits, weightedRows, withChunkValues, withRows, type HeadWeights } from './head.ts';
import { checkDirection, chunkParts, directionProduct, directionRows, dot64, partOf, sideBySide, type VocabDirection } from './head-directions.ts';
import { rmsNorm } from './ops.ts';
import { blockRowsFor } from './row-block-upload.ts';

/** The target rows of one sequence (targetRows) and its final hidden states [T·hidden]. */
export interface HeadSequence {
  readonly hidden: Float32Array;
  readonly rows: readonly number[];
  readonly labels: readonly number[];
}

export interface HeadLossOptions {
  /** Rows pushed through the vocab projection at once. */
  readonly chunkRows: number;
}

export interface HeadGradOptions extends HeadLossOptions {
  /** Each sequence's mean CE enters the objective times this (1 / sequenceCount). */
  readonly scale: number;
  /** Also return d/d lm_head, [vocab · hidden] (a second pass over the chunks). */
  readonly lmHeadGrad: boolean;
  /** Also return ⟨d objective / d lm_head, Δ⟩ of each of these, from this one pass. */
  readonly directions?: readonly VocabDirection[];
}

export interface HeadGrads {
  /** Mean CE of each sequence over its targets. */
  readonly sequenceLosses: number[];
  /** d objective / d final hidden, one [T·hidden] per sequence (zero on rows that predict nothing). */
  readonly dHidden: Float32Array[];
  readonly dNorm: Float32Array;
  /** d objective / d lm_head, stored layout [vocab · hidden]. */
  readonly dLmHead?: Float32Array;
  /** ⟨d objective / d lm_head, Δ⟩ of each of options.directions (none: empty). */
  readonly directionDots: number[];
}

interface RowBlock {
  readonly owners: readonly { sequence: number; row: number }[];
  readonly hidden: tf.Tensor2D;
  readonly normed: tf.Tensor2D;
  readonly ce: ChunkedCrossEntropy;
  /** d objective / d CE of each row. */
  readonly weights: readonly number[];
}

/** Mean CE of each sequence (NaN for one without targets). */
export async function headLosses(spec: ModelSpec, head: HeadWeights, sequences: readonly HeadSequence[], options: HeadLossOptions): Promise<number[]> {
  const blocks = rowBlocks(spec, head, sequences, options.chunkRows, 0);
  try {
    for (const chunk of head.chunks) await withRows(head, chunk, (rows) => blocks.forEach((b) => withLogits(b, rows, (logits) => b.ce.add(logits, chunk.start))));
    return sequenceMeans(sequences, blocks);
  } finally {
    disposeBlocks(blocks);
  }
}

export async function headLossAndGrads(spec: ModelSpec, head: HeadWeights, sequences: readonly HeadSequence[], options: HeadGradOptions): Promise<HeadGrads> {
  const width = spec.hiddenSize;
  const directions = options.directions ?? [];
  directions.forEach((d) => checkDirection(d, head.vocab, width, 'lm_head'));
  // Row r of each block's product and label rows: [W | Δ_1 | … | Δ_K] parts side by side.
  const parts = 1 + directions.length;
  const blocks = rowBlocks(spec, head, sequences, options.chunkRows, options.scale);
  try {
    // One buffer for every block's exps, reused across chunks (the first block is the largest).
    const exps = new Float32Array((blocks[0]?.owners.length ?? 0) * Math.max(0, ...head.chunks.map((c) => c.size)));
    for (const chunk of head.chunks) {
      const along = chunkParts(directions, chunk, width, head.onDemand?.blockRows ?? blockRowsFor(width));
      await withRows(head, chunk, async (rows) => {
        for (const b of blocks) {
          const blockExps = exps.subarray(0, b.owners.length * chunk.size);
          withLogits(b, rows, (logits) => b.ce.addWithExps(logits, chunk.start, blockExps));
          // W's product before any await: withChunkValues' heap view must not outlive a read (head.ts)
          const products = [withChunkValues(chunk, rows, (values) => weightedRows(blockExps, b.owners.length, values, width, rows))];
          for (const part of along) products.push(await directionProduct(part, blockExps, b.owners.length, width));
          b.ce.foldProduct(sideBySide(products, width));
        }
      });
    }
    const sequenceLosses = sequenceMeans(sequences, blocks);
    const dHidden = sequences.map((s) => new Float32Array(s.hidden.length));
    const dNorm = new Float32Array(width);
    const directionDots = directions.map(() => 0);
    for (const b of blocks) {
      const labelRows = [await headRows(head, b.ce.labels), ...(await Promise.all(directions.map((d) => directionRows(d, b.ce.labels, width))))];
      const dInputs = b.ce.inputGradient(sideBySide(labelRows, width), b.weights);
      const dNormed = partOf(dInputs, 0, parts, width);
      if (directions.length > 0) {
        const normed = b.normed.dataSync() as Float32Array;
        directions.forEach((_, k) => (directionDots[k] = (directionDots[k] as number) + dot64(partOf(dInputs, k + 1, parts, width), normed)));
      }
      const [dx, dw] = tf.tidy(() => tf.grads((x: tf.Tensor, w: tf.Tensor) => rmsNorm(x, w as tf.Tensor1D, spec.rmsNormEps))([b.hidden, head.norm], tf.tensor2d(dNormed, [b.owners.length, width]))) as [tf.Tensor, tf.Tensor];
      const values = dx.dataSync();
      b.owners.forEach((o, j) => (dHidden[o.sequence] as Float32Array).set(values.subarray(j * width, (j + 1) * width), o.row * width));
      dw.dataSync().forEach((v, k) => (dNorm[k] = (dNorm[k] as number) + v));
      tf.dispose([dx, dw]);
    }
    return { sequenceLosses, dHidden, dNorm, directionDots, ...(options.lmHeadGrad ? { dLmHead: await lmHeadGradient(head, blocks) } : {}) };
  } finally {
    disposeBlocks(blocks);
  }
}

/**
 * d objective / d lm_head, [vocab · hidden]: a second pass over the chunks (it needs every row's
 * final max and sum), the chunk's vocab-major dlogits [size, rows] times the normed rows.
 */
async function lmHeadGradient(head: HeadWeights, blocks: readonly RowBlock[]): Promise<Float32Array> {
  const dLmHead = new Float32Array(head.vocab * head.width);
  for (const chunk of head.chunks) {
    const sum = await withRows(head, chunk, (rows) => {
      let total: tf.Tensor2D | undefined;
      for (const b of blocks) {
        const gradient = withLogits(b, rows, (logits) => b.ce.gradient(logits, chunk.start, b.weights));
        total = accumulate(total, tf.tidy(() => tf.matMul<tf.Tensor2D>(tf.tensor2d(gradient, [chunk.size, b.owners.length]), b.normed)));
      }
      return total;
    });
    if (sum === undefined) continue;
    dLmHead.set(sum.dataSync(), chunk.start * head.width);
    sum.dispose();
  }
  return dLmHead;
}

/** Target rows of the batch in blocks of `chunkRows`, normed. */
function rowBlocks(spec: ModelSpec, head: HeadWeights, sequences: readonly HeadSequence[], chunkRows: number, scale: number): RowBlock[] {
  const width = spec.hiddenSize;
  const all = sequences.flatMap((s, sequence) => s.rows.map((row, i) => ({ sequence, row, label: s.labels[i] as number, weight: scale / s.rows.length })));
  const blocks: RowBlock[] = [];
  try {
    for (let start = 0; start < all.length; start += chunkRows) {
      const part = all.slice(start, start + chunkRows);
      const values = new Float32Array(part.length * width);
      part.forEach((p, i) => values.set(gatherRows((sequences[p.sequence] as HeadSequence).hidden, [p.row], width), i * width));
      const hidden = tf.tensor2d(values, [part.length, width]);
      blocks.push({ owners: part, hidden, normed: tf.tidy(() => rmsNorm(hidden, head.norm, spec.rmsNormEps)), ce: new ChunkedCrossEntropy(part.map((p) => p.label)), weights: part.map((p) => p.weight) });
    }
    return blocks;
  } catch (error) {
    disposeBlocks(blocks);
    throw error;
  }
}

/** Runs `use` on the block's logits against one uploaded chunk, vocab-major [size, rows], read in place (heap-values.ts). */
function withLogits<T>(block: RowBlock, rows: tf.Tensor2D, use: (logits: Float32Array) => T): T {
  const logits = tf.tidy(() => vocabMajorLogits(block.normed, rows));
  try {
    return withHeapValues(logits, use);
  } finally {
    logits.dispose();
  }
}

function sequenceMeans(sequences: readonly HeadSequence[], blocks: readonly RowBlock[]): number[] {
  const sums = new Float64Array(sequences.length);
  for (const b of blocks) {
    b.ce.losses().forEach((loss, j) => {
      const { sequence } = b.owners[j] as RowBlock['owners'][number];
      sums[sequence] = (sums[sequence] as number) + loss;
    });
  }
  return Array.from(sums, (sum, s) => sum / (sequences[s] as HeadSequence).rows.length);
}

function disposeBlocks(blocks: readonly RowBlock[]): void {
  tf.dispose(blocks.flatMap((b) => [b.hidden, b.normed]));
}
