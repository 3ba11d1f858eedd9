/**
 * The output head (final RMSNorm + lm_head), held in vocab chunks, and the target rows of the
 * masked causal-LM loss (head-loss.ts computes the loss and its gradient chunk by chunk).
 *
 * lm_head is uploaded one vocab chunk at a time from its stored [vocab, hidden] values and kept
 * as [hidden, chunk] tensors (the compute layout: a plain product is what wasm runs fast), so
 * neither the upload nor any product ever holds more than one chunk beyond the head itself.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ModelSpec } from './config.ts';
import type { ModelContext } from './forward.ts';
import { rmsNorm } from './ops.ts';
import { FINAL_NORM_NAME, LM_HEAD_NAME, readChecked } from './weights.ts';

/** Vocab ids per head chunk: [128 rows, 16384] f32 logits are 8 MiB. */
export const DEFAULT_VOCAB_CHUNK = 16_384;

export interface HeadChunk {
  /** First vocab id of the chunk. */
  readonly start: number;
  /** lm_head rows start…start+size−1 in compute layout [hidden, size]. */
  readonly columns: tf.Tensor2D;
}

export interface HeadWeights {
  readonly norm: tf.Tensor1D;
  readonly chunks: readonly HeadChunk[];
  readonly vocab: number;
}

/** Reads model.norm and lm_head (or the tied embedding) into chunked tensors; dispose with disposeHead. */
export async function readHead(ctx: ModelContext, vocabChunk = DEFAULT_VOCAB_CHUNK): Promise<HeadWeights> {
  const { spec, checkpoint } = ctx;
  const norm = await readChecked(checkpoint, FINAL_NORM_NAME, [spec.hiddenSize]);
  const values = spec.tiedEmbeddings ? await ctx.embedding() : await readChecked(checkpoint, LM_HEAD_NAME, [spec.vocabSize, spec.hiddenSize]);
  return headFromValues(norm, values, vocabChunk);
}

/** A head from model.norm [hidden] and lm_head as stored [vocab · hidden]. */
export function headFromValues(norm: Float32Array, stored: Float32Array, vocabChunk = DEFAULT_VOCAB_CHUNK): HeadWeights {
  const width = norm.length;
  const vocab = stored.length / width;
  if (!Number.isInteger(vocab)) throw new RangeError(`lm_head of ${stored.length} values is not [vocab, ${width}]`);
  if (!(Number.isInteger(vocabChunk) && vocabChunk > 0)) throw new RangeError(`vocab chunk ${vocabChunk} must be a positive integer`);
  const chunks: HeadChunk[] = [];
  for (let start = 0; start < vocab; start += vocabChunk) {
    const size = Math.min(vocabChunk, vocab - start);
    chunks.push({ start, columns: tf.tidy(() => tf.transpose(tf.tensor2d(stored.subarray(start * width, (start + size) * width), [size, width]))) });
  }
  return { norm: tf.tensor1d(norm), chunks, vocab };
}

export function disposeHead(head: HeadWeights): void {
  tf.dispose([head.norm, ...head.chunks.map((c) => c.columns)]);
}

/**
 * Logits [rows · vocab] of hidden states [rows, hidden], for callers that want whole rows
 * (scoring output, decoding): filled chunk by chunk, so tfjs holds one [rows, chunk] at a time.
 */
export function headLogits(spec: ModelSpec, head: HeadWeights, hidden: tf.Tensor2D): Float32Array {
  const rows = hidden.shape[0];
  const out = new Float32Array(rows * head.vocab);
  const normed = tf.tidy(() => rmsNorm(hidden, head.norm, spec.rmsNormEps));
  try {
    for (const c of head.chunks) {
      const size = c.columns.shape[1];
      const values = tf.tidy(() => tf.matMul(normed, c.columns).dataSync());
      for (let r = 0; r < rows; r++) out.set(values.subarray(r * size, (r + 1) * size), r * head.vocab + c.start);
    }
    return out;
  } finally {
    normed.dispose();
  }
}

/** Rows (t−1) whose next token is a target, and those target ids. */
export function targetRows(ids: ArrayLike<number>, targets?: ArrayLike<number | boolean>): { rows: number[]; labels: number[] } {
  const rows: number[] = [];
  const labels: number[] = [];
  for (let t = 1; t < ids.length; t++) {
    if (targets === undefined || Boolean(targets[t])) {
      rows.push(t - 1);
      labels.push(ids[t] as number);
    }
  }
  return { rows, labels };
}

export function gatherRows(data: Float32Array, rows: readonly number[], width: number): Float32Array {
  const out = new Float32Array(rows.length * width);
  rows.forEach((r, i) => out.set(data.subarray(r * width, (r + 1) * width), i * width));
  return out;
}

/** sum ← sum + next, disposing the operands. */
export function accumulate<T extends tf.Tensor>(sum: T | undefined, next: T): T {
  if (sum === undefined) return next;
  const total = tf.add(sum, next) as T;
  tf.dispose([sum, next]);
  return total;
}
