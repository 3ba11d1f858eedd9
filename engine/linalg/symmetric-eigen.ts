/**
 * Dense symmetric eigen-decomposition in float64.
 *
 *   symmetricEigen(matrix, n) → { values, vectors }
 *     matrix   n×n row-major, symmetric (only the lower triangle is read)
 *     values   eigenvalues, descending
 *     vectors  n×n row-major, ROW i is the unit eigenvector of values[i]
 *
 * Method: Householder reduction to tridiagonal form with the transformations accumulated,
 * then the implicit QL iteration with Wilkinson-style shifts on the tridiagonal matrix
 * (the classic tred2/tql2 pair). Cost is about 9n³ flops for values and vectors.
 *
 * Storage note: the textbook formulation updates columns of the accumulated orthogonal
 * matrix. We keep its transpose instead, so every inner loop walks contiguous memory: for a
 * 2048×2048 Gram matrix that is the difference between cache-friendly rows and stride-n
 * column walks.
 */

import { tridiagonalQL } from './tridiagonal-ql.ts';

export interface SymmetricEigen {
  readonly values: Float64Array;
  readonly vectors: Float64Array;
}

export function symmetricEigen(matrix: Float64Array, n: number): SymmetricEigen {
  if (matrix.length !== n * n) throw new RangeError(`matrix has ${matrix.length} entries, expected ${n}×${n}`);
  for (const v of matrix) if (!Number.isFinite(v)) throw new RangeError('matrix has a non-finite entry');
  // w[b*n + a] holds the (a, b) entry of the orthogonal matrix being accumulated. It starts as
  // the input, which is symmetric, so copying the lower triangle into both halves is enough.
  const w = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = matrix[i * n + j] as number;
      w[i * n + j] = v;
      w[j * n + i] = v;
    }
  }
  const diag = new Float64Array(n);
  const off = new Float64Array(n);
  if (n > 0) {
    tridiagonalize(w, n, diag, off);
    // tridiagonalize leaves e[i] coupling i−1 and i; the QL wants e[i] coupling i and i+1.
    off.copyWithin(0, 1);
    tridiagonalQL(diag, off, w);
  }
  return sortDescending(w, n, diag);
}

/** Householder reduction; leaves the diagonal in `d`, the sub-diagonal in `e[1..n-1]`. */
function tridiagonalize(w: Float64Array, n: number, d: Float64Array, e: Float64Array): void {
  const at = (row: number, col: number) => col * n + row; // index of (row, col) in the transpose
  for (let j = 0; j < n; j++) d[j] = w[at(n - 1, j)] as number;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k] as number);
    if (scale === 0) {
      // Row already reduced: nothing to annihilate.
      e[i] = d[i - 1] as number;
      for (let j = 0; j < i; j++) {
        d[j] = w[at(i - 1, j)] as number;
        w[at(i, j)] = 0;
        w[at(j, i)] = 0;
      }
    } else {
      // Householder vector from the scaled row, scaled to avoid under/overflow.
      for (let k = 0; k < i; k++) {
        d[k] = (d[k] as number) / scale;
        h += (d[k] as number) ** 2;
      }
      let f = d[i - 1] as number;
      let g = f > 0 ? -Math.sqrt(h) : Math.sqrt(h);
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      e.fill(0, 0, i);
      // e = A·u (lower triangle only, the matrix is symmetric).
      for (let j = 0; j < i; j++) {
        f = d[j] as number;
        w[at(j, i)] = f;
        const colJ = j * n;
        g = (e[j] as number) + (w[colJ + j] as number) * f;
        for (let k = j + 1; k < i; k++) {
          const a = w[colJ + k] as number;
          g += a * (d[k] as number);
          e[k] = (e[k] as number) + a * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = (e[j] as number) / h;
        f += (e[j] as number) * (d[j] as number);
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = (e[j] as number) - hh * (d[j] as number);
      // Rank-two update A ← A − u·pᵀ − p·uᵀ of the remaining lower triangle.
      for (let j = 0; j < i; j++) {
        f = d[j] as number;
        g = e[j] as number;
        const colJ = j * n;
        for (let k = j; k < i; k++) w[colJ + k] = (w[colJ + k] as number) - (f * (e[k] as number) + g * (d[k] as number));
        d[j] = w[at(i - 1, j)] as number;
        w[at(i, j)] = 0;
      }
    }
    d[i] = h;
  }
  // Accumulate the Householder reflections into the orthogonal matrix.
  for (let i = 0; i < n - 1; i++) {
    w[at(n - 1, i)] = w[at(i, i)] as number;
    w[at(i, i)] = 1;
    const h = d[i + 1] as number;
    const colNext = (i + 1) * n;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = (w[colNext + k] as number) / h;
      for (let j = 0; j <= i; j++) {
        const colJ = j * n;
        let g = 0;
        for (let k = 0; k <= i; k++) g += (w[colNext + k] as number) * (w[colJ + k] as number);
        for (let k = 0; k <= i; k++) w[colJ + k] = (w[colJ + k] as number) - g * (d[k] as number);
      }
    }
    for (let k = 0; k <= i; k++) w[colNext + k] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = w[at(n - 1, j)] as number;
    w[at(n - 1, j)] = 0;
  }
  w[at(n - 1, n - 1)] = 1;
  e[0] = 0;
}

function sortDescending(w: Float64Array, n: number, d: Float64Array): SymmetricEigen {
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (d[b] as number) - (d[a] as number));
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((from, to) => {
    values[to] = d[from] as number;
    vectors.set(w.subarray(from * n, from * n + n), to * n);
  });
  return { values, vectors };
}
