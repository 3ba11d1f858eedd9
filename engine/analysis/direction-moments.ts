/**
 * The preview's per-direction moments of one tensor (tensor-moments.ts), as a WebAssembly SIMD kernel.
 *
 *   projectedMoments(rows, projector) → { scalars: 6 sums, directions: rank × 6 }
 *
 * For every row of the tensor and every direction V_i: c_R, c_A, c_T, c_D = the row of g_R, g_A,
 * T(δ), δ dotted with V_i, then out[i] += (c_R·c_T, c_A·c_T, c_T², c_R·c_D, c_A·c_D, c_D²).
 * That is rows·d·r·4 multiply-adds in float64, most of the gates stage: scalar JS reached
 * ~2.8 GFLOP/s on it, the kernel several times that (ARCHITECTURE.md, compute profile).
 *
 * Bit-identical to the scalar float64 loops it replaces: every lane of an f64x2 is one of those
 * sums, added in the same order (j = 0…d−1 for a dot product starting at +0, rows in order for a
 * moment), and WebAssembly never fuses a multiply into an add. Products of two float32 values
 * are exact in float64, so only the order could have differed.
 *
 * Memory layout (float64): a chunk of rows, each coordinate j as [g_R, g_A, T, δ] (32 bytes), so
 * one load gives (g_R, g_A) and one (T, δ) for two lanes; the basis in blocks of four directions,
 * coordinate j as [V_4b, V_4b+1, V_4b+2, V_4b+3] (zero past the rank), the same 32-byte stride;
 * out as (padded rank) × 6. T(δ) is computed while a chunk is laid out, and the six scalar sums
 * of tensor-moments ride along in that same pass.
 */
import type { GspProjector } from '../crane/gsp-projector.ts';
import { WASM_PAGE_BYTES, lazyKernel, op, type Bytes } from '../linalg/wasm-emitter.ts';

/** tensor-moments.ts MOMENTS: the kernel writes that layout (imported there, so not imported back). */
const DIRECTION_MOMENTS = 6;
const BLOCK = 4;
/** Bytes of one coordinate of a laid-out row, and of one coordinate of a basis block. */
const STRIDE = 32;
const CHUNK_BYTES = 1 << 20;

export interface ThresholdedRows {
  readonly gradR: Float32Array;
  readonly gradA: Float32Array;
  readonly delta: Float32Array;
  /** T(δ)_j = fround(δ_j·rescale) where |δ_j| > threshold, else 0 (magnitude-threshold.ts). */
  readonly threshold: number;
  readonly rescale: number;
}

/** Params: rows, rowsEnd, rowBytes, basis, basisEnd, out (byte addresses). */
const [ROWS, ROWS_END, ROW_BYTES, BASIS, BASIS_END, OUT] = [0, 1, 2, 3, 4, 5];
/** i32 locals: the current row, basis block and out block, the inner pointers. */
const [ROW, BLOCK_BASIS, BLOCK_OUT, P, P_END, B] = [6, 7, 8, 9, 10, 11];
/** v128 locals: 8 accumulators (direction d: 2d = (c_R, c_A), 2d+1 = (c_T, c_D)), two row values, a splat. */
const ACC = 12;
const [X0, X1, SPLAT] = [ACC + 8, ACC + 9, ACC + 10];

function kernelBody(): Bytes {
  const accumulate: number[] = [];
  for (let d = 0; d < BLOCK; d++) {
    accumulate.push(...op.localGet(B), ...op.v128Load64Splat(8 * d), ...op.localSet(SPLAT));
    for (const [acc, x] of [[ACC + 2 * d, X0], [ACC + 2 * d + 1, X1]] as const) {
      accumulate.push(...op.localGet(acc), ...op.localGet(x), ...op.localGet(SPLAT), ...op.f64x2Mul, ...op.f64x2Add, ...op.localSet(acc));
    }
  }
  const addMoments: number[] = [];
  for (let d = 0; d < BLOCK; d++) {
    const at = 48 * d;
    const [rA, tD] = [ACC + 2 * d, ACC + 2 * d + 1];
    // out[0..1] += (c_R, c_A)·c_T and out[3..4] += (c_R, c_A)·c_D
    for (const [lane, offset] of [[0, at], [1, at + 24]] as const) {
      addMoments.push(...op.localGet(BLOCK_OUT), ...op.localGet(BLOCK_OUT), ...op.v128Load(offset),
        ...op.localGet(rA), ...op.localGet(tD), ...op.f64x2ExtractLane(lane), ...op.f64x2Splat, ...op.f64x2Mul, ...op.f64x2Add, ...op.v128Store(offset));
    }
    // out[2] += c_T², out[5] += c_D²
    for (const [lane, offset] of [[0, at + 16], [1, at + 40]] as const) {
      addMoments.push(...op.localGet(BLOCK_OUT), ...op.localGet(BLOCK_OUT), ...op.f64Load(offset),
        ...op.localGet(tD), ...op.localGet(tD), ...op.f64x2Mul, ...op.f64x2ExtractLane(lane), ...op.f64Add, ...op.f64Store(offset));
    }
  }
  const zeroAccumulators = Array.from({ length: 2 * BLOCK }, (_, k) => [...op.v128Zero, ...op.localSet(ACC + k)]).flat();
  const advance = (local: number, by: number[]) => [...op.localGet(local), ...by, ...op.i32Add, ...op.localSet(local)];
  return [
    ...op.localGet(ROWS), ...op.localSet(ROW),
    ...op.loop, // rows
    ...op.localGet(BASIS), ...op.localSet(BLOCK_BASIS),
    ...op.localGet(OUT), ...op.localSet(BLOCK_OUT),
    ...op.loop, // blocks of four directions
    ...zeroAccumulators,
    ...op.localGet(ROW), ...op.localTee(P), ...op.localGet(ROW_BYTES), ...op.i32Add, ...op.localSet(P_END),
    ...op.localGet(BLOCK_BASIS), ...op.localSet(B),
    ...op.loop, // coordinates j
    ...op.localGet(P), ...op.v128Load(0), ...op.localSet(X0),
    ...op.localGet(P), ...op.v128Load(16), ...op.localSet(X1),
    ...accumulate,
    ...advance(B, op.i32Const(STRIDE)),
    ...advance(P, op.i32Const(STRIDE)),
    ...op.localGet(P), ...op.localGet(P_END), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...addMoments,
    ...advance(BLOCK_OUT, op.i32Const(48 * BLOCK)),
    ...advance(BLOCK_BASIS, op.localGet(ROW_BYTES)),
    ...op.localGet(BLOCK_BASIS), ...op.localGet(BASIS_END), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...advance(ROW, op.localGet(ROW_BYTES)),
    ...op.localGet(ROW), ...op.localGet(ROWS_END), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
  ];
}

const instance = lazyKernel<(rows: number, rowsEnd: number, rowBytes: number, basis: number, basisEnd: number, out: number) => void>(
  () => ({ name: 'moments', params: 6, locals: { i32: 6, v128: 11 }, body: kernelBody() }),
);

/**
 * Per-direction moments of `rows` against the projector (rank × DIRECTION_MOMENTS) and the six
 * scalar sums (tensor-moments' layout), from one pass over the tensor.
 */
export function projectedMoments(rows: ThresholdedRows, projector: GspProjector): { scalars: Float64Array; directions: Float64Array } {
  const { dim, rank } = projector;
  const { gradR, gradA, delta, threshold, rescale } = rows;
  const length = delta.length;
  if (length % dim !== 0) throw new RangeError(`${length} values are not rows of ${dim}`);
  const blocks = Math.ceil(rank / BLOCK);
  const rowBytes = dim * STRIDE;
  const chunkRows = Math.max(1, Math.floor(CHUNK_BYTES / rowBytes));
  const [basisAt, outAt, rowsAt] = [0, blocks * rowBytes, blocks * rowBytes + blocks * BLOCK * 48];
  const { memory, run } = instance();
  const needed = rowsAt + chunkRows * rowBytes;
  if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / WASM_PAGE_BYTES));
  const heap = new Float64Array(memory.buffer);
  layOutBasis(projector, heap.subarray(basisAt / 8, outAt / 8));
  const out = heap.subarray(outAt / 8, rowsAt / 8).fill(0);
  const laidOut = heap.subarray(rowsAt / 8);
  let rt = 0, at = 0, tt = 0, rd = 0, ad = 0, dd = 0;
  for (let start = 0; start < length; start += chunkRows * dim) {
    const end = Math.min(length, start + chunkRows * dim);
    let q = 0;
    for (let j = start; j < end; j++, q += 4) {
      const r = gradR[j] as number;
      const a = gradA[j] as number;
      const d = delta[j] as number;
      const t = Math.fround(d * rescale) * Number(Math.abs(d) > threshold); // branch-free: thresholdOf
      laidOut[q] = r;
      laidOut[q + 1] = a;
      laidOut[q + 2] = t;
      laidOut[q + 3] = d;
      rt += r * t; at += a * t; tt += t * t;
      rd += r * d; ad += a * d; dd += d * d;
    }
    run(rowsAt, rowsAt + ((end - start) / dim) * rowBytes, rowBytes, basisAt, outAt, outAt);
  }
  return { scalars: Float64Array.of(rt, at, tt, rd, ad, dd), directions: out.slice(0, rank * DIRECTION_MOMENTS) };
}

/** V (dim × rank, float32 row-major) into blocks of four directions, coordinate-major inside a block. */
function layOutBasis(projector: GspProjector, into: Float64Array): void {
  const { dim, rank, basis } = projector;
  into.fill(0);
  for (let j = 0; j < dim; j++) {
    for (let i = 0; i < rank; i++) into[Math.floor(i / BLOCK) * dim * BLOCK + j * BLOCK + (i % BLOCK)] = basis[j * rank + i] as number;
  }
}
