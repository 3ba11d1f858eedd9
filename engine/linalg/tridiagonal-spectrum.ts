/**
 * The eigenvalues of a symmetric tridiagonal matrix, block by block, and eigenvectors for a
 * chosen few of them by inverse iteration (the method of LAPACK's stein, written afresh).
 *
 *   tridiagonalSpectrum(diag, off) → eigenvalues descending, each with the unreduced block it
 *                                    belongs to (off[i] couples i and i+1)
 *   tridiagonalVectors(diag, off, spectrum, count) → count×n row-major eigenvectors of the first
 *                                    `count` eigenvalues, or null when inverse iteration did not
 *                                    converge (the caller then falls back to a dense solver)
 *
 * Off-diagonals below ε·(|d_i| + |d_{i+1}|) split the matrix into unreduced blocks; an
 * eigenvector lives on its block only. Within a block, eigenvalues closer than 10⁻³·‖block‖
 * form a cluster whose vectors are re-orthogonalised against each other at every step
 * (modified Gram–Schmidt): that is what keeps the basis orthonormal when, as in Gram matrices
 * of activations, hundreds of small eigenvalues sit close together far below σ₁².
 */
import { tridiagonalQL } from './tridiagonal-ql.ts';

export interface TridiagonalSpectrum {
  /** Eigenvalues, descending. */
  readonly values: Float64Array;
  /** Per eigenvalue: the first index of its unreduced block. */
  readonly blockStart: Int32Array;
  /** Per eigenvalue: one past the last index of its block. */
  readonly blockEnd: Int32Array;
}

const CLUSTER_GAP = 1e-3;
const MAX_ITERATIONS = 8;

export function tridiagonalSpectrum(diag: Float64Array, off: Float64Array): TridiagonalSpectrum {
  const n = diag.length;
  const pairs: { value: number; start: number; end: number }[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const last = i === n - 1 || Math.abs(off[i] as number) <= Number.EPSILON * (Math.abs(diag[i] as number) + Math.abs(diag[i + 1] as number));
    if (!last) continue;
    const d = diag.slice(start, i + 1);
    const e = off.slice(start, i + 1);
    tridiagonalQL(d, e);
    for (const value of d) pairs.push({ value, start, end: i + 1 });
    start = i + 1;
  }
  pairs.sort((x, y) => y.value - x.value);
  return {
    values: Float64Array.from(pairs, (p) => p.value),
    blockStart: Int32Array.from(pairs, (p) => p.start),
    blockEnd: Int32Array.from(pairs, (p) => p.end),
  };
}

export function tridiagonalVectors(diag: Float64Array, off: Float64Array, spectrum: TridiagonalSpectrum, count: number): Float64Array | null {
  const n = diag.length;
  const vectors = new Float64Array(count * n);
  // Per block: the previous selected eigenvalue and the members of its current cluster.
  const clusters = new Map<number, { last: number; members: number[] }>();
  for (let k = 0; k < count; k++) {
    const start = spectrum.blockStart[k] as number;
    const end = spectrum.blockEnd[k] as number;
    const norm = blockNorm(diag, off, start, end);
    let shift = spectrum.values[k] as number;
    let cluster = clusters.get(start);
    if (cluster === undefined || cluster.last - shift > CLUSTER_GAP * norm) cluster = { last: shift, members: [] };
    // Equal shifts would give the same vector back: keep them apart by a few ulps of the value.
    const apart = 10 * Number.EPSILON * Math.max(Math.abs(shift), Number.MIN_VALUE);
    if (cluster.members.length > 0 && cluster.last - shift < apart) shift = cluster.last - apart;
    const vector = vectors.subarray(k * n + start, k * n + end);
    const others = cluster.members.map((m) => vectors.subarray(m * n + start, m * n + end));
    if (!inverseIteration(diag.subarray(start, end), off.subarray(start, end), shift, norm, vector, others, k)) return null;
    cluster.members.push(k);
    cluster.last = shift;
    clusters.set(start, cluster);
  }
  return vectors;
}

function blockNorm(diag: Float64Array, off: Float64Array, start: number, end: number): number {
  let norm = 0;
  for (let i = start; i < end; i++) {
    const left = i > start ? Math.abs(off[i - 1] as number) : 0;
    const right = i + 1 < end ? Math.abs(off[i] as number) : 0;
    norm = Math.max(norm, Math.abs(diag[i] as number) + left + right);
  }
  return norm;
}

/**
 * Solves (T − shift·I)·x = b repeatedly from a seeded start, re-orthogonalising against
 * `others`, until ‖(T − λI)x‖ is at rounding level; writes the unit vector into `out`.
 */
function inverseIteration(d: Float64Array, e: Float64Array, shift: number, norm: number, out: Float64Array, others: readonly Float64Array[], seed: number): boolean {
  const m = d.length;
  if (m === 1) {
    out[0] = 1;
    return true;
  }
  const lu = factorShifted(d, e, shift, norm);
  let state = (seed * 2654435761 + 12345) >>> 0;
  for (let i = 0; i < m; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 4294967296 - 0.5;
  }
  orthogonalise(out, others);
  normalise(out);
  const tolerance = 4 * Math.sqrt(m) * Number.EPSILON * Math.max(norm, Number.MIN_VALUE);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    solveFactored(lu, out);
    orthogonalise(out, others);
    if (!normalise(out)) return false;
    if (iteration > 0 && residual(d, e, shift, out) <= tolerance) return true;
  }
  return false;
}

interface ShiftedLU {
  readonly diag: Float64Array;
  readonly upper1: Float64Array;
  readonly upper2: Float64Array;
  readonly lower: Float64Array;
  readonly swapped: Uint8Array;
}

/** LU with partial pivoting of T − shift·I; a zero pivot becomes ε·‖T‖ (a huge, finite step). */
function factorShifted(d: Float64Array, e: Float64Array, shift: number, norm: number): ShiftedLU {
  const m = d.length;
  const diag = Float64Array.from(d, (x) => x - shift);
  const upper1 = Float64Array.from(e);
  const upper2 = new Float64Array(m);
  const lower = Float64Array.from(e);
  const swapped = new Uint8Array(m);
  for (let i = 0; i + 1 < m; i++) {
    const sub = lower[i] as number;
    if (Math.abs(diag[i] as number) >= Math.abs(sub)) {
      const factor = diag[i] === 0 ? 0 : sub / (diag[i] as number);
      lower[i] = factor;
      diag[i + 1] = (diag[i + 1] as number) - factor * (upper1[i] as number);
    } else {
      const factor = (diag[i] as number) / sub;
      swapped[i] = 1;
      diag[i] = sub;
      lower[i] = factor;
      const top = upper1[i] as number;
      upper1[i] = diag[i + 1] as number;
      diag[i + 1] = top - factor * (diag[i + 1] as number);
      if (i + 2 < m) {
        upper2[i] = upper1[i + 1] as number;
        upper1[i + 1] = -factor * (upper1[i + 1] as number);
      }
    }
  }
  const tiny = Number.EPSILON * Math.max(norm, Number.MIN_VALUE);
  for (let i = 0; i < m; i++) if (Math.abs(diag[i] as number) < tiny) diag[i] = (diag[i] as number) < 0 ? -tiny : tiny;
  return { diag, upper1, upper2, lower, swapped };
}

function solveFactored(lu: ShiftedLU, x: Float64Array): void {
  const m = x.length;
  for (let i = 0; i + 1 < m; i++) {
    if (lu.swapped[i] === 1) {
      const top = x[i] as number;
      x[i] = x[i + 1] as number;
      x[i + 1] = top - (lu.lower[i] as number) * (x[i] as number);
    } else {
      x[i + 1] = (x[i + 1] as number) - (lu.lower[i] as number) * (x[i] as number);
    }
  }
  for (let i = m - 1; i >= 0; i--) {
    const next = i + 1 < m ? (lu.upper1[i] as number) * (x[i + 1] as number) : 0;
    const after = i + 2 < m ? (lu.upper2[i] as number) * (x[i + 2] as number) : 0;
    x[i] = ((x[i] as number) - next - after) / (lu.diag[i] as number);
  }
}

function orthogonalise(x: Float64Array, others: readonly Float64Array[]): void {
  for (const o of others) {
    let dot = 0;
    for (let i = 0; i < x.length; i++) dot += (x[i] as number) * (o[i] as number);
    for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) - dot * (o[i] as number);
  }
}

/** Scales x to unit length; false when it is zero or not finite. */
function normalise(x: Float64Array): boolean {
  let max = 0;
  for (const v of x) max = Math.max(max, Math.abs(v));
  if (!(max > 0) || !Number.isFinite(max)) return false;
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    x[i] = (x[i] as number) / max;
    sum += (x[i] as number) ** 2;
  }
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) * scale;
  return true;
}

/** ‖(T − λI)x‖₂ for a block. */
function residual(d: Float64Array, e: Float64Array, shift: number, x: Float64Array): number {
  const m = d.length;
  let sum = 0;
  for (let i = 0; i < m; i++) {
    let r = ((d[i] as number) - shift) * (x[i] as number);
    if (i > 0) r += (e[i - 1] as number) * (x[i - 1] as number);
    if (i + 1 < m) r += (e[i] as number) * (x[i + 1] as number);
    sum += r * r;
  }
  return Math.sqrt(sum);
}
