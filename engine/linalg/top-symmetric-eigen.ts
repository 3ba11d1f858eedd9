/**
 * The leading eigenpairs of a dense symmetric matrix, for callers that need every eigenvalue
 * but only the first few eigenvectors (GSP keeps r ≤ 256 of d directions).
 *
 *   topSymmetricEigen(matrix, n, wanted) → { values, vectors, count }
 *     values   all n eigenvalues, descending
 *     wanted   given the descending eigenvalues, how many leading vectors to compute
 *     vectors  count×n row-major; row i is the unit eigenvector of values[i]
 *
 * Method: Householder reduction to tridiagonal T without forming Q (householder-tridiagonal.ts),
 * the eigenvalues of T by QL without vectors, inverse iteration on T for the wanted few
 * (tridiagonal-spectrum.ts), and the reflectors applied to those few only: about
 * 4/3·n³ + 2·n²·count flops instead of the ≈9·n³ of forming and rotating the whole of Q.
 * Should inverse iteration ever fail to converge, the dense solver (symmetric-eigen.ts)
 * answers instead, so the result never depends on it succeeding.
 */
import { applyQ, reduceToTridiagonal } from './householder-tridiagonal.ts';
import { symmetricEigen } from './symmetric-eigen.ts';
import { tridiagonalSpectrum, tridiagonalVectors } from './tridiagonal-spectrum.ts';

export interface TopSymmetricEigen {
  readonly values: Float64Array;
  readonly vectors: Float64Array;
  readonly count: number;
}

export function topSymmetricEigen(matrix: Float64Array, n: number, wanted: (values: Float64Array) => number): TopSymmetricEigen {
  if (matrix.length !== n * n) throw new RangeError(`matrix has ${matrix.length} entries, expected ${n}×${n}`);
  for (const v of matrix) if (!Number.isFinite(v)) throw new RangeError('matrix has a non-finite entry');
  const t = reduceToTridiagonal(matrix, n);
  const spectrum = tridiagonalSpectrum(t.diag, t.off);
  const count = Math.max(0, Math.min(n, Math.floor(wanted(spectrum.values))));
  const vectors = tridiagonalVectors(t.diag, t.off, spectrum, count);
  if (vectors === null) {
    const dense = symmetricEigen(matrix, n);
    return { values: dense.values, vectors: dense.vectors.slice(0, count * n), count };
  }
  applyQ(t, vectors, count);
  return { values: spectrum.values, vectors, count };
}
