/**
 * Causal grouped-query attention in query chunks, with a gradient that recomputes each chunk's
 * softmax instead of keeping it.
 *
 * Whole-sequence attention holds [group·T, S] scores, their masked copy and the softmax for
 * every KV head inside one tidy — and tf.grads keeps them all for the backward: at 2,048 tokens
 * and 32 heads that is gigabytes, past wasm's 4 GiB heap. Here a chunk of queries meets every KV
 * head inside its own tidy, so the forward holds one chunk's scores at a time; the custom
 * gradient saves only q, k and v and, chunk by chunk, rebuilds P and forms
 *
 *   dV += Pᵀ·dO,  dP = dO·Vᵀ,  dS = P ∘ (dP − rowsum(P ∘ dP)),  dQ = dS·K,  dK += dSᵀ·Q.
 *
 * A chunk only multiplies the keys its queries can see (past + last query), so causal chunks
 * also skip the masked upper triangle. Every product is rank-2 and plain (transposes of K and V
 * are made once per call): what tfjs-backend-wasm runs fast.
 *
 * Row layout per KV head: [T·group, d], query i's group heads in consecutive rows, so a chunk of
 * queries is a contiguous row range.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMul } from '../tensor/matmul.ts';
import { accumulate } from './head.ts';

export interface CausalAttention {
  /** The heads' context, [T, heads·d] (head j·group + g uses KV head j). */
  readonly context: tf.Tensor2D;
  /** Softmax weights per KV head, [group, T, S] each, made on demand (whole matrices: short prompts only). */
  readonly probs: () => tf.Tensor3D[];
}

interface Shape {
  readonly t: number;
  readonly kvHeads: number;
  readonly group: number;
  readonly d: number;
  readonly keys: number;
  readonly past: number;
}

/**
 * q [T, heads, d] (after RoPE) at positions past…past+T−1 attends to k, v [kvHeads, S, d]
 * (S = past + T), `queryChunk` queries at a time.
 */
export function causalAttention(q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D, queryChunk: number): CausalAttention {
  const [t, heads, d] = q.shape;
  const [kvHeads, keys] = k.shape;
  const shape: Shape = { t, kvHeads, group: heads / kvHeads, d, keys, past: keys - t };
  if (!(Number.isInteger(queryChunk) && queryChunk > 0)) throw new RangeError(`attention query chunk ${queryChunk} must be a positive integer`);
  // 1/√d on q ([T·group, d]) rather than on the scores ([T·group, S]): fewer elements.
  const rows = tf.reshape<tf.Rank.R3>(tf.transpose(tf.reshape(tf.mul(q, 1 / Math.sqrt(d)), [t, kvHeads, shape.group, d]), [1, 0, 2, 3]), [kvHeads, t * shape.group, d]);
  const out = attentionOp(shape, queryChunk)(rows, k, v) as tf.Tensor3D;
  const context = tf.reshape<tf.Rank.R2>(tf.transpose(tf.reshape(out, [kvHeads, t, shape.group, d]), [1, 0, 2, 3]), [t, heads * d]);
  const probs = (): tf.Tensor3D[] => {
    const kT = keyColumns(k, shape);
    const mask = chunkMask(shape, 0, t);
    return kT.map((kh, h) => {
      const p = chunkProbs(headRows(rows, shape, h, 0, t), kh, mask, shape.keys);
      return tf.transpose(tf.reshape(p, [t, shape.group, shape.keys]), [1, 0, 2]);
    });
  };
  return { context, probs };
}

function attentionOp(shape: Shape, queryChunk: number): (...inputs: tf.Tensor[]) => tf.Tensor {
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [q, k, v, save] = args as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.GradSaveFunc];
    save([q, k, v]);
    return {
      value: forward(shape, queryChunk, q, k, v),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => backward(shape, queryChunk, dy as tf.Tensor3D, saved as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D]),
    };
  });
}

function forward(shape: Shape, queryChunk: number, q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D): tf.Tensor3D {
  const kT = keyColumns(k, shape);
  const values = perHead(v, shape);
  const parts: tf.Tensor2D[][] = kT.map(() => []);
  try {
    forEachQueryChunk(shape, queryChunk, ({ first, count, seen, mask }) => {
      kT.forEach((kh, h) => {
        const part = tf.tidy(() => tf.matMul<tf.Tensor2D>(chunkProbs(headRows(q, shape, h, first, count), kh, mask, seen), prefix(values[h] as tf.Tensor2D, seen)));
        (parts[h] as tf.Tensor2D[]).push(part);
      });
    });
    return stackHeads(parts);
  } finally {
    tf.dispose([...kT, ...values, ...parts.flat()]);
  }
}

function backward(shape: Shape, queryChunk: number, dy: tf.Tensor3D, [q, k, v]: [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D]): tf.Tensor[] {
  const kT = keyColumns(k, shape);
  const vT = keyColumns(v, shape);
  const kRows = perHead(k, shape);
  const dQ: tf.Tensor2D[][] = kT.map(() => []);
  const dK: (tf.Tensor2D | undefined)[] = kT.map(() => undefined);
  const dV: (tf.Tensor2D | undefined)[] = kT.map(() => undefined);
  try {
    forEachQueryChunk(shape, queryChunk, ({ first, count, seen, mask }) => {
      kT.forEach((kh, h) => {
        const [dq, dk, dv] = tf.tidy(() => {
          const qc = headRows(q, shape, h, first, count);
          const dyc = headRows(dy, shape, h, first, count);
          const p = chunkProbs(qc, kh, mask, seen);
          const dp = tf.matMul(dyc, prefixColumns(vT[h] as tf.Tensor2D, seen));
          const ds = tf.mul(p, tf.sub(dp, tf.sum(tf.mul(p, dp), 1, true)));
          // Keys past `seen` get nothing from this chunk: pad the [seen, d] products to [S, d].
          const padKeys = (x: tf.Tensor2D): tf.Tensor2D => (seen === shape.keys ? x : tf.pad(x, [[0, shape.keys - seen], [0, 0]]));
          return [tf.matMul(ds, prefix(kRows[h] as tf.Tensor2D, seen)), padKeys(matMul(ds, qc, true, false)), padKeys(matMul(p, dyc, true, false))];
        });
        (dQ[h] as tf.Tensor2D[]).push(dq as tf.Tensor2D);
        dK[h] = accumulate(dK[h], dk as tf.Tensor2D);
        dV[h] = accumulate(dV[h], dv as tf.Tensor2D);
      });
    });
    // Every head met at least one chunk (T ≥ 1), so its key and value sums exist.
    const whole = (sums: (tf.Tensor2D | undefined)[]): tf.Tensor3D => stackHeads(sums.map((x) => [x as tf.Tensor2D]));
    return [stackHeads(dQ), whole(dK), whole(dV)];
  } finally {
    tf.dispose([...kT, ...vT, ...kRows, ...dQ.flat(), ...dK.filter((x) => x !== undefined), ...dV.filter((x) => x !== undefined)]);
  }
}

/** One chunk of queries: its first query, how many, the keys they see (past + first + count) and its causal mask. */
interface QueryChunk {
  readonly first: number;
  readonly count: number;
  readonly seen: number;
  readonly mask: tf.Tensor2D | undefined;
}

/** Calls `each` for every chunk of `queryChunk` queries in order; the chunk's mask lives for the call. */
function forEachQueryChunk(shape: Shape, queryChunk: number, each: (chunk: QueryChunk) => void): void {
  for (let first = 0; first < shape.t; first += queryChunk) {
    const count = Math.min(queryChunk, shape.t - first);
    const mask = chunkMask(shape, first, count);
    each({ first, count, seen: shape.past + first + count, mask });
    mask?.dispose();
  }
}

/** Per KV head, its row chunks in order → [kvHeads, rows, d]. */
function stackHeads(chunks: readonly (readonly tf.Tensor2D[])[]): tf.Tensor3D {
  return tf.tidy(() => tf.stack(chunks.map((p) => (p.length === 1 ? (p[0] as tf.Tensor2D) : tf.concat([...p], 0)))) as tf.Tensor3D);
}

/** softmax((q·kᵀ)[:, :seen] + mask) for one chunk of rows of one KV head. */
function chunkProbs(rows: tf.Tensor2D, kT: tf.Tensor2D, mask: tf.Tensor2D | undefined, seen: number): tf.Tensor2D {
  const scores = tf.matMul<tf.Tensor2D>(rows, prefixColumns(kT, seen));
  return tf.softmax<tf.Tensor2D>(mask === undefined ? scores : tf.add<tf.Tensor2D>(scores, mask));
}

/** Rows of queries first…first+count−1 (all their group heads) of KV head h: [count·group, d]. */
function headRows(x: tf.Tensor3D, shape: Shape, h: number, first: number, count: number): tf.Tensor2D {
  const { group, d } = shape;
  return tf.reshape(tf.slice(x, [h, first * group, 0], [1, count * group, d]), [count * group, d]);
}

/** k or v [kvHeads, S, d] → one [S, d] per head. */
function perHead(x: tf.Tensor3D, shape: Shape): tf.Tensor2D[] {
  return tf.tidy(() => tf.unstack(x).map((h) => tf.reshape(h, [shape.keys, shape.d])));
}

/** k or v [kvHeads, S, d] → one [d, S] per head. */
function keyColumns(x: tf.Tensor3D, shape: Shape): tf.Tensor2D[] {
  return tf.tidy(() => perHead(x, shape).map((h) => tf.transpose(h)));
}

function prefix(x: tf.Tensor2D, seen: number): tf.Tensor2D {
  return seen === x.shape[0] ? x : tf.slice(x, [0, 0], [seen, x.shape[1]]);
}

function prefixColumns(x: tf.Tensor2D, seen: number): tf.Tensor2D {
  return seen === x.shape[1] ? x : tf.slice(x, [0, 0], [x.shape[0], seen]);
}

/**
 * Additive mask [count·group, past+first+count] for a chunk: query i (position past+i) sees
 * keys 0…past+i. None for a single query, which sees every key the chunk multiplies.
 */
function chunkMask(shape: Shape, first: number, count: number): tf.Tensor2D | undefined {
  if (count === 1) return undefined;
  const { group, past } = shape;
  const seen = past + first + count;
  const values = new Float32Array(count * group * seen);
  for (let i = 0; i < count; i++) {
    for (let g = 0; g < group; g++) {
      const row = (i * group + g) * seen;
      values.fill(-1e9, row + past + first + i + 1, row + seen);
    }
  }
  return tf.tensor2d(values, [count * group, seen]);
}
