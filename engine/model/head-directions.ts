/**
 * Directions Δ on the vocab-sized head weights (lm_head, the embedding), and the pieces that dot
 * them with those weights' gradients without forming a [vocab, hidden] gradient (issue 14: the
 * curvature passes held two 622 MB gradient arrays at Qwen3-0.6B shapes only to take such dots).
 *
 * For logits z_r = W·x_r (x_r the normed row), ⟨∇_W L, Δ⟩ = Σ_r Σ_v dz_r[v]·(Δ·x_r)[v]
 * = Σ_r ⟨Σ_v dz_r[v]·Δ_v, x_r⟩: the input gradient of row r as if Δ were the head, dotted with x_r.
 * head-loss.ts gets that input gradient the way it gets the real one, in its single pass over the
 * chunks: ChunkedCrossEntropy folds exps · [W_chunk | Δ_chunk …] side by side (directionProduct
 * gives each Δ's part of a chunk) and inputGradient takes the label rows [W_label | Δ_label …]
 * (directionRows). The embedding lookup's part is Σ_t ⟨Δ[id_t], d/d embedding output at t⟩,
 * from the same directionRows at the batch's tokens (layer-grads.ts).
 * A Δ over every row need not exist as a whole (an untied lm_head's blend: 622 MB at Qwen3-0.6B
 * shapes): a RowwiseDirection gives its rows when asked, and its part of a chunk is multiplied a
 * block of rows at a time (WeightedRowSums: the same float32 sums as over the chunk's rows at once).
 */
import * as tf from '@tensorflow/tfjs-core';
import { WeightedRowSums } from '../linalg/weighted-row-sums.ts';
import { weightedRows, type HeadChunk } from './head.ts';
import { rowBlocks, rowIds } from './row-block-upload.ts';

/** Δ on a [vocab, hidden] weight as stored: whole, [vocab · hidden]; or with `rows`, those rows' values ([rows.length · hidden]) and 0 elsewhere. */
export interface StoredDirection {
  readonly values: Float32Array;
  readonly rows?: Int32Array;
}

/** Δ on a [vocab, hidden] weight formed when read: rowsOf(ids) → its rows at vocab ids `ids`, [ids.length · hidden]. */
export interface RowwiseDirection {
  readonly rowsOf: (ids: ArrayLike<number>) => Promise<Float32Array>;
}

export type VocabDirection = StoredDirection | RowwiseDirection;

export interface HeadDirections {
  /** Directions on model.embed_tokens.weight, dotted with its gradient: the lookup's, plus the lm_head use's when tied. */
  readonly embedding: readonly VocabDirection[];
  /** Directions on lm_head.weight. A tied model has no such weight in use: their dots are 0. */
  readonly lmHead: readonly VocabDirection[];
}

/** ⟨∇L, Δ⟩ for each direction given, in the given order. */
export interface HeadDots {
  readonly embedding: number[];
  readonly lmHead: number[];
}

/** One direction's part of a head chunk: the chunk's rows of Δ, as stored (`local`: which of the chunk's rows they are, when Δ has rows), or read by blocks of `blockRows`. */
type ChunkPart = { readonly values: Float32Array; readonly local?: readonly number[] } | { readonly rowwise: RowwiseDirection; readonly chunk: HeadChunk; readonly blockRows: number };

export function isRowwise(direction: VocabDirection): direction is RowwiseDirection {
  return 'rowsOf' in direction;
}

/** Throws unless `direction` fits a [vocab, width] weight (`name` says which, for the message; a rowwise one is checked per read). */
export function checkDirection(direction: VocabDirection, vocab: number, width: number, name: string): void {
  if (isRowwise(direction)) return;
  const { values, rows } = direction;
  if (rows === undefined) {
    if (values.length !== vocab * width) throw new RangeError(`${name}: a direction of ${values.length} values for a [${vocab}, ${width}] weight`);
    return;
  }
  if (values.length !== rows.length * width) throw new RangeError(`${name}: a direction of ${values.length} values on ${rows.length} rows of ${width}`);
  const bad = rows.find((r) => !(r >= 0 && r < vocab));
  if (bad !== undefined) throw new RangeError(`${name}: direction row ${bad} is outside the weight's ${vocab} rows`);
}

/** Every direction's part of `chunk` (whole Δ: a view, no copy; a rowwise one read `blockRows` rows at a time by directionProduct). */
export function chunkParts(directions: readonly VocabDirection[], chunk: HeadChunk, width: number, blockRows: number): ChunkPart[] {
  return directions.map((direction) => {
    if (isRowwise(direction)) return { rowwise: direction, chunk, blockRows };
    const { values, rows } = direction;
    if (rows === undefined) return { values: values.subarray(chunk.start * width, (chunk.start + chunk.size) * width) };
    const inside = [...rows.keys()].filter((k) => (rows[k] as number) >= chunk.start && (rows[k] as number) < chunk.start + chunk.size);
    const picked = new Float32Array(inside.length * width);
    inside.forEach((k, i) => picked.set(values.subarray(k * width, (k + 1) * width), i * width));
    return { values: picked, local: inside.map((k) => (rows[k] as number) - chunk.start) };
  });
}

/** exps [count, chunk size] · Δ_chunk → [count · width], by the same product as exps · W_chunk (head.ts weightedRows). */
export async function directionProduct(part: ChunkPart, exps: Float32Array, count: number, width: number): Promise<Float32Array> {
  if ('rowwise' in part) return rowwiseProduct(part, exps, count, width);
  const { values, local } = part;
  if (local === undefined) return weightedRows(exps, count, values, width);
  if (local.length === 0) return new Float32Array(count * width);
  // Only the columns of exps at Δ's rows meet a nonzero row.
  const size = exps.length / count;
  const picked = new Float32Array(count * local.length);
  for (let r = 0; r < count; r++) local.forEach((c, i) => (picked[r * local.length + i] = exps[r * size + c] as number));
  return weightedRows(picked, count, values, width);
}

/**
 * weightedRows over a rowwise Δ's chunk read a block at a time: on wasm and cpu the kernel's sums
 * carried from block to block (no chunk-sized Δ), elsewhere the blocks gathered and multiplied
 * at once, as weightedRows would multiply a stored chunk.
 */
async function rowwiseProduct(part: { readonly rowwise: RowwiseDirection; readonly chunk: HeadChunk; readonly blockRows: number }, exps: Float32Array, count: number, width: number): Promise<Float32Array> {
  const { rowwise, chunk, blockRows } = part;
  const eachBlock = async (use: (first: number, values: Float32Array) => void): Promise<void> => {
    for (const { first, count } of rowBlocks(chunk.size, blockRows)) {
      const values = await rowwise.rowsOf(rowIds(chunk.start + first, count));
      if (values.length !== count * width) throw new RangeError(`a rowwise direction gave ${values.length} values for ${count} rows of ${width}`);
      use(first, values);
    }
  };
  if (tf.getBackend() !== 'wasm' && tf.getBackend() !== 'cpu') {
    const whole = new Float32Array(chunk.size * width);
    await eachBlock((first, values) => whole.set(values, first * width));
    return weightedRows(exps, count, whole, width);
  }
  const sums = new WeightedRowSums(exps, count, chunk.size, width);
  await eachBlock((first, values) => sums.add(first, values));
  return sums.result();
}

/** Δ's rows at vocab ids `ids`, [ids.length · width] (zeros where Δ has no row). */
export async function directionRows(direction: VocabDirection, ids: ArrayLike<number>, width: number): Promise<Float32Array> {
  if (isRowwise(direction)) return direction.rowsOf(ids);
  const { values, rows } = direction;
  const at = rows === undefined ? undefined : new Map(Array.from(rows, (r, k) => [r, k]));
  const out = new Float32Array(ids.length * width);
  for (let t = 0; t < ids.length; t++) {
    const id = ids[t] as number;
    const row = at === undefined ? id : at.get(id);
    if (row !== undefined) out.set(values.subarray(row * width, (row + 1) * width), t * width);
  }
  return out;
}

/** `parts` of [n, width] each as rows [n, parts · width], side by side (tf.concat(parts, 1)'s layout). */
export function sideBySide(parts: readonly Float32Array[], width: number): Float32Array {
  if (parts.length === 1) return parts[0] as Float32Array;
  const n = (parts[0]?.length ?? 0) / width;
  const out = new Float32Array(n * width * parts.length);
  for (let r = 0; r < n; r++) parts.forEach((p, k) => out.set(p.subarray(r * width, (r + 1) * width), (r * parts.length + k) * width));
  return out;
}

/** Part k of rows laid side by side, [n, width]. */
export function partOf(rows: Float32Array, k: number, parts: number, width: number): Float32Array {
  if (parts === 1) return rows;
  const n = rows.length / (parts * width);
  const out = new Float32Array(n * width);
  for (let r = 0; r < n; r++) out.set(rows.subarray((r * parts + k) * width, (r * parts + k + 1) * width), r * width);
  return out;
}

/** Σ a[i]·b[i] in float64. */
export function dot64(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
