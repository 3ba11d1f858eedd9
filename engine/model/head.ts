/**
 * The output head (final RMSNorm + lm_head), held in vocab chunks outside the tfjs heap, and the
 * target rows of the masked causal-LM loss (head-loss.ts computes the loss and its gradient
 * chunk by chunk).
 *
 * A Qwen3-4B lm_head (151,936 × 2,560 f32) is 1.56 GB; it does not fit next to a layer's working
 * set in wasm's 4 GiB heap. So the chunks stay in JS memory as stored, [size, hidden] (a view of
 * the embedding when tied, no copy), and are uploaded for one use at a time (`withRows`); a
 * `resident` head (decoding, where the same head is used per token) keeps them uploaded.
 * Logits are (rows · normedᵀ)ᵀ (`chunkLogits`): a plain product — the only kind wasm runs fast —
 * whose right operand, the one XNNPACK packs per call, is the small [hidden, n] normedᵀ. The
 * earlier layout, x · columns with the chunk transposed at load, packed the whole chunk on every
 * upload and transposed and read back the whole head on every readHead (issue 14 profile: 10 of
 * the 10.2 CPU seconds of a 64-token forward at Qwen3-0.6B shapes).
 *
 * An `onDemand` head (the losses and the backward: head-loss.ts) holds no rows at all: each chunk
 * is read from the source a block of rows at a time (readRowsFloat32) straight into its upload
 * (row-block-upload.ts) when it is used, and the backward's exps · W reads the uploaded chunk.
 * A whole lm_head is then never in JS memory: what the source computes per row (a curvature
 * probe's θ_I + step·Δ, an anchor's edit: pipeline/directional-gradients.ts, row-block-edit.ts)
 * is formed a block at a time instead of as a vocab-sized array, with the same float32 values,
 * since those edits treat each row on its own.
 */
import * as tf from '@tensorflow/tfjs-core';
import { weightedRowSums } from '../linalg/weighted-row-sums.ts';
import { withHeapValues } from '../tensor/heap-values.ts';
import { tidyValues } from '../tensor/tidy-values.ts';
import type { ModelSpec } from './config.ts';
import type { ModelContext } from './forward.ts';
import { planMemory } from './memory-plan.ts';
import { rmsNorm } from './ops.ts';
import { blockRowsFor, ROW_BLOCK_VALUES, rowIds, uploadRowBlocks } from './row-block-upload.ts';
import { assertShape, FINAL_NORM_NAME, LM_HEAD_NAME, readChecked } from './weights.ts';

/** Vocab ids per head chunk when no memory plan says otherwise: [128 rows, 16384] f32 logits are 8 MiB. */
export const DEFAULT_VOCAB_CHUNK = 16_384;

export interface HeadChunk {
  /** First vocab id of the chunk. */
  readonly start: number;
  readonly size: number;
  /** lm_head rows start…start+size−1 as stored, [size · hidden]; none in an on-demand head. */
  readonly rows?: Float32Array;
  /** The rows uploaded once, for a resident head. */
  readonly resident?: tf.Tensor2D;
}

export interface HeadWeights {
  readonly norm: tf.Tensor1D;
  readonly chunks: readonly HeadChunk[];
  readonly vocab: number;
  readonly width: number;
  /** An on-demand head's reads: rows as stored, [ids.length · hidden], read when used, blockRows rows at a time. */
  readonly onDemand?: { readonly readRows: ReadHeadRows; readonly blockRows: number };
}

export type ReadHeadRows = (ids: ArrayLike<number>) => Promise<Float32Array>;

export interface HeadOptions {
  readonly vocabChunk?: number;
  /** Keep every chunk uploaded (1× lm_head of tfjs memory) instead of per use. */
  readonly resident?: boolean;
  /** Read each chunk from the source when it is used (an untied lm_head whose source reads rows; else held as read). */
  readonly onDemand?: boolean;
  /** Values an on-demand head reads per block of a chunk's rows (at least one row); ROW_BLOCK_VALUES unless a test makes it small. */
  readonly blockValues?: number;
}

/** Reads model.norm and lm_head (or the tied embedding) into chunks; dispose with disposeHead. */
export async function readHead(ctx: ModelContext, options: HeadOptions = {}): Promise<HeadWeights> {
  const { spec, checkpoint } = ctx;
  const norm = await readChecked(checkpoint, FINAL_NORM_NAME, [spec.hiddenSize]);
  const readRows = checkpoint.readRowsFloat32?.bind(checkpoint);
  if (options.onDemand === true && options.resident !== true && !spec.tiedEmbeddings && readRows !== undefined) {
    assertShape(checkpoint, LM_HEAD_NAME, [spec.vocabSize, spec.hiddenSize]);
    return headOnDemand(norm, spec.vocabSize, options.vocabChunk ?? planMemory(spec).vocabChunk, (ids) => readRows(LM_HEAD_NAME, ids), options.blockValues);
  }
  const values = spec.tiedEmbeddings ? await ctx.embedding() : await readChecked(checkpoint, LM_HEAD_NAME, [spec.vocabSize, spec.hiddenSize]);
  return headFromValues(norm, values, { vocabChunk: planMemory(spec).vocabChunk, ...options });
}

/** A head from model.norm [hidden] and lm_head as stored [vocab · hidden] (kept by reference). */
export function headFromValues(norm: Float32Array, stored: Float32Array, options: HeadOptions = {}): HeadWeights {
  const width = norm.length;
  const vocab = stored.length / width;
  const vocabChunk = options.vocabChunk ?? DEFAULT_VOCAB_CHUNK;
  if (!Number.isInteger(vocab)) throw new RangeError(`lm_head of ${stored.length} values is not [vocab, ${width}]`);
  checkVocabChunk(vocabChunk);
  const chunks: HeadChunk[] = [];
  try {
    for (let start = 0; start < vocab; start += vocabChunk) {
      const size = Math.min(vocabChunk, vocab - start);
      const rows = stored.subarray(start * width, (start + size) * width);
      chunks.push(options.resident === true ? { start, size, rows, resident: tf.tensor2d(rows, [size, width]) } : { start, size, rows });
    }
  } catch (error) {
    tf.dispose(chunks.flatMap((c) => (c.resident === undefined ? [] : [c.resident])));
    throw error;
  }
  return { norm: tf.tensor1d(norm), chunks, vocab, width };
}

/** A head of `vocab` rows whose chunks are read by `readRows` when used, `blockValues` values (at least a row) a read (readHead's onDemand). */
export function headOnDemand(norm: Float32Array, vocab: number, vocabChunk: number, readRows: ReadHeadRows, blockValues = ROW_BLOCK_VALUES): HeadWeights {
  checkVocabChunk(vocabChunk);
  if (!(Number.isInteger(blockValues) && blockValues > 0)) throw new RangeError(`read blocks of ${blockValues} values: must be a positive integer`);
  const chunks: HeadChunk[] = [];
  for (let start = 0; start < vocab; start += vocabChunk) chunks.push({ start, size: Math.min(vocabChunk, vocab - start) });
  return { norm: tf.tensor1d(norm), chunks, vocab, width: norm.length, onDemand: { readRows, blockRows: blockRowsFor(norm.length, blockValues) } };
}

function checkVocabChunk(vocabChunk: number): void {
  if (!(Number.isInteger(vocabChunk) && vocabChunk > 0)) throw new RangeError(`vocab chunk ${vocabChunk} must be a positive integer`);
}

export function disposeHead(head: HeadWeights): void {
  tf.dispose([head.norm, ...head.chunks.flatMap((c) => (c.resident === undefined ? [] : [c.resident]))]);
}

/**
 * Runs `use` with the chunk's stored rows [size, hidden] as a tensor (uploaded for this call unless
 * resident; read first when on demand), which stays uploaded until what `use` returns has settled
 * (a head direction formed by rows is read while the chunk is in use: head-directions.ts).
 */
export async function withRows<T>(head: HeadWeights, chunk: HeadChunk, use: (rows: tf.Tensor2D) => T | Promise<T>): Promise<T> {
  if (chunk.resident !== undefined) return use(chunk.resident);
  const tensor = chunk.rows !== undefined ? tf.tensor2d(chunk.rows, [chunk.size, head.width]) : await uploadOnDemand(head, chunk);
  try {
    return await use(tensor);
  } finally {
    tensor.dispose();
  }
}

/** An on-demand chunk's rows read a block at a time into its upload (row-block-upload.ts). */
function uploadOnDemand(head: HeadWeights, chunk: HeadChunk): Promise<tf.Tensor2D> {
  if (head.onDemand === undefined) throw new Error('internal: a head chunk with neither rows nor a reader');
  const { readRows, blockRows } = head.onDemand;
  const read = (first: number, count: number) => readRows(rowIds(chunk.start + first, count));
  return uploadRowBlocks(chunk.size, head.width, blockRows, read);
}

/** withRows for a head that holds its rows (read whole, or resident): no read to wait for. */
function withHeldRows<T>(head: HeadWeights, chunk: HeadChunk, use: (rows: tf.Tensor2D) => T): T {
  if (chunk.resident !== undefined) return use(chunk.resident);
  if (chunk.rows === undefined) throw new Error('internal: an on-demand head chunk used as a held one');
  return withUpload(chunk.rows, [chunk.size, head.width], use);
}

/**
 * Runs `use` with the chunk's stored values [size · hidden], given its upload `rows` (withRows):
 * the held rows, or an on-demand chunk's values in the upload itself (heap-values.ts: `use` must
 * not call tfjs nor keep them).
 */
export function withChunkValues<T>(chunk: HeadChunk, rows: tf.Tensor2D, use: (values: Float32Array) => T): T {
  return chunk.rows !== undefined ? use(chunk.rows) : withHeapValues(rows, use);
}

/** Logits [n, size] of normed hidden rows [n, hidden] against a chunk's uploaded rows [size, hidden] (call inside a tidy). */
export function chunkLogits(normed: tf.Tensor2D, rows: tf.Tensor2D): tf.Tensor2D {
  return tf.transpose(vocabMajorLogits(normed, rows));
}

/** The same logits vocab-major, [size, n]: the product as it comes out, for readers that take that layout (call inside a tidy). */
export function vocabMajorLogits(normed: tf.Tensor2D, rows: tf.Tensor2D): tf.Tensor2D {
  return tf.matMul(rows, tf.transpose(normed));
}

/**
 * weights [count, size] · matrix [size, width] → [count · width], for row-major weights and a
 * stored row-major matrix: the backward's exps · W_chunk, and exps · Δ_chunk for the directions
 * of head-directions.ts. On wasm and cpu by the SIMD kernel over the stored rows
 * (linalg/weighted-row-sums.ts: XNNPACK packs the whole uploaded chunk for every such product,
 * and then runs it at half the logits product's rate); native backends multiply the matrix
 * uploaded (`uploaded` when the caller already has it on the backend).
 */
export function weightedRows(weights: Float32Array, count: number, matrix: Float32Array, width: number, uploaded?: tf.Tensor2D): Float32Array {
  const size = matrix.length / width;
  const backend = tf.getBackend();
  if (backend === 'wasm' || backend === 'cpu') return weightedRowSums(weights, count, matrix, size, width);
  return tidyValues(() => tf.matMul(tf.tensor2d(weights, [count, size]), uploaded ?? tf.tensor2d(matrix, [size, width])));
}

/** lm_head rows of `ids` as stored, [ids.length · hidden] (copies of the head's JS-side rows, or read for an on-demand head). */
export async function headRows(head: HeadWeights, ids: readonly number[]): Promise<Float32Array> {
  const outside = ids.find((id) => !(Number.isInteger(id) && id >= 0 && id < head.vocab));
  if (outside !== undefined) throw new RangeError(`vocab id ${outside} is outside the head's ${head.vocab} rows`);
  if (head.onDemand !== undefined) return head.onDemand.readRows(ids);
  const out = new Float32Array(ids.length * head.width);
  ids.forEach((id, i) => {
    const chunk = head.chunks.find((c) => id >= c.start && id < c.start + c.size) as HeadChunk;
    out.set((chunk.rows as Float32Array).subarray((id - chunk.start) * head.width, (id - chunk.start + 1) * head.width), i * head.width);
  });
  return out;
}

function withUpload<T>(values: Float32Array, shape: [number, number], use: (t: tf.Tensor2D) => T): T {
  const tensor = tf.tensor2d(values, shape);
  try {
    return use(tensor);
  } finally {
    tensor.dispose();
  }
}

/**
 * Logits [rows · vocab] of hidden states [rows, hidden], for callers that want whole rows
 * (scoring output, decoding), in JS memory: tfjs holds one chunk and one [rowBlock, chunk]
 * product at a time. The head holds its rows (not onDemand): decoding calls this inside a tidy.
 */
export function headLogits(spec: ModelSpec, head: HeadWeights, hidden: tf.Tensor2D, rowBlock = 256): Float32Array {
  const rows = hidden.shape[0];
  const out = new Float32Array(rows * head.vocab);
  const normed = tf.tidy(() => rmsNorm(hidden, head.norm, spec.rmsNormEps));
  try {
    for (const c of head.chunks) {
      withHeldRows(head, c, (chunkRows) => {
        for (let first = 0; first < rows; first += rowBlock) {
          const count = Math.min(rowBlock, rows - first);
          const values = tidyValues(() => chunkLogits(tf.slice(normed, [first, 0], [count, head.width]), chunkRows));
          for (let r = 0; r < count; r++) out.set(values.subarray(r * c.size, (r + 1) * c.size), (first + r) * head.vocab + c.start);
        }
      });
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
