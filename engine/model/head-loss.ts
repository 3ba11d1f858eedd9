/**
 * The masked causal-LM loss of a batch through the chunked head, and its gradient.
 *
 * Loss of one sequence = mean over its target tokens t (t ≥ 1) of CE(logits[t−1], ids[t]). Only
 * the rows t−1 that predict a target go through the head, gathered across the batch into blocks
 * of `chunkRows`. The loop is vocab-major: each lm_head chunk is uploaded once per pass and meets
 * every row block, so the logits in memory are one [chunkRows, vocab chunk] product; the
 * logits (head.ts chunkLogits) and the backward's dlogits · W both multiply the chunk's stored
 * rows, so the head is never transposed. ChunkedCrossEntropy accumulates in
 * float64: pass 1 finds each row's log Σ exp, pass 2 recomputes the chunk's logits and turns
 * them into gradients.
 */
import * as tf from '@tensorflow/tfjs-core';
import { tidyValues } from '../tensor/tidy-values.ts';
import { ChunkedCrossEntropy } from '../tensor/chunked-cross-entropy.ts';
import { matMul } from '../tensor/matmul.ts';
import type { ModelSpec } from './config.ts';
import { accumulate, chunkLogits, gatherRows, withRows, type HeadWeights } from './head.ts';
import { rmsNorm } from './ops.ts';

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
  /** Also return d/d model.norm and d/d lm_head. */
  readonly weightGrads: boolean;
}

export interface HeadGrads {
  /** Mean CE of each sequence over its targets. */
  readonly sequenceLosses: number[];
  /** d objective / d final hidden, one [T·hidden] per sequence (zero on rows that predict nothing). */
  readonly dHidden: Float32Array[];
  readonly dNorm?: Float32Array;
  /** d objective / d lm_head, stored layout [vocab · hidden]. */
  readonly dLmHead?: Float32Array;
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
export function headLosses(spec: ModelSpec, head: HeadWeights, sequences: readonly HeadSequence[], options: HeadLossOptions): number[] {
  const blocks = rowBlocks(spec, head, sequences, options.chunkRows, 0);
  try {
    return sequenceMeans(sequences, blocks);
  } finally {
    disposeBlocks(blocks);
  }
}

export function headLossAndGrads(spec: ModelSpec, head: HeadWeights, sequences: readonly HeadSequence[], options: HeadGradOptions): HeadGrads {
  const width = spec.hiddenSize;
  const blocks = rowBlocks(spec, head, sequences, options.chunkRows, options.scale);
  const dNormed: (tf.Tensor2D | undefined)[] = blocks.map(() => undefined);
  const dLmHead = options.weightGrads ? new Float32Array(head.vocab * width) : undefined;
  try {
    const sequenceLosses = sequenceMeans(sequences, blocks);
    for (const chunk of head.chunks) {
      const dChunk = withRows(head, chunk, (rowsLayout) => {
        let sum: tf.Tensor2D | undefined;
        for (const [i, b] of blocks.entries()) {
          const gradient = b.ce.gradient(blockLogits(b, rowsLayout), chunk.start, b.weights);
          dNormed[i] = accumulate(dNormed[i], normedGradient(b, chunk.start, dLmHead === undefined ? gradient : gradient.slice(), rowsLayout));
          if (dLmHead !== undefined) {
            sum = accumulate(sum, tf.tidy(() => matMul<tf.Tensor2D>(tf.tensor2d(gradient, [b.owners.length, chunk.size]), b.normed, true, false)));
          }
        }
        return sum;
      });
      if (dChunk !== undefined) dLmHead?.set(dChunk.dataSync(), chunk.start * width);
      dChunk?.dispose();
    }
    const dHidden = sequences.map((s) => new Float32Array(s.hidden.length));
    const dNorm = new Float32Array(width);
    blocks.forEach((b, i) => {
      const [dx, dw] = tf.tidy(() => tf.grads((x: tf.Tensor, w: tf.Tensor) => rmsNorm(x, w as tf.Tensor1D, spec.rmsNormEps))([b.hidden, head.norm], dNormed[i])) as [tf.Tensor, tf.Tensor];
      const values = dx.dataSync();
      b.owners.forEach((o, j) => (dHidden[o.sequence] as Float32Array).set(values.subarray(j * width, (j + 1) * width), o.row * width));
      dw.dataSync().forEach((v, k) => (dNorm[k] = (dNorm[k] as number) + v));
      tf.dispose([dx, dw]);
    });
    return { sequenceLosses, dHidden, ...(options.weightGrads ? { dNorm } : {}), ...(dLmHead !== undefined ? { dLmHead } : {}) };
  } finally {
    tf.dispose(dNormed.filter((t) => t !== undefined));
    disposeBlocks(blocks);
  }
}

/** Target rows of the batch in blocks of `chunkRows`, normed, with pass 1 of the CE already run. */
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
    for (const chunk of head.chunks) withRows(head, chunk, (rowsLayout) => blocks.forEach((b) => b.ce.add(blockLogits(b, rowsLayout), chunk.start)));
    return blocks;
  } catch (error) {
    disposeBlocks(blocks);
    throw error;
  }
}

/**
 * d objective / d normed rows from one chunk: dlogits · W. The target's own term (−Σ_{j≠label}
 * p_j times its lm_head row) is added apart from the product: inside one float32 dot product
 * over the chunk it would be the large running sum that every small p_j·W_j is rounded against.
 * `gradient` is taken over (its label entries are zeroed): callers that still need it pass a copy.
 */
function normedGradient(block: RowBlock, start: number, gradient: Float32Array, rowsLayout: tf.Tensor2D): tf.Tensor2D {
  const rows = block.owners.length;
  const size = gradient.length / rows;
  const others = gradient;
  const labelGrad = new Float32Array(rows);
  const labelRow = new Int32Array(rows);
  block.ce.labels.forEach((label, r) => {
    const j = label - start;
    if (j < 0 || j >= size) return;
    labelGrad[r] = others[r * size + j] as number;
    labelRow[r] = j;
    others[r * size + j] = 0;
  });
  return tf.tidy(() => {
    const labelTerm = tf.mul(tf.gather(rowsLayout, tf.tensor1d(labelRow, 'int32')), tf.tensor2d(labelGrad, [rows, 1]));
    return tf.add(tf.matMul(tf.tensor2d(others, [rows, size]), rowsLayout), labelTerm);
  });
}

function blockLogits(block: RowBlock, rowsLayout: tf.Tensor2D): Float32Array {
  return tidyValues(() => chunkLogits(block.normed, rowsLayout));
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
