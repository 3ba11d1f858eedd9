/**
 * Eigenvalues (and optionally eigenvectors) of a symmetric tridiagonal matrix by the implicit
 * QL iteration with Wilkinson-style shifts (the classic tql1/tql2).
 *
 *   tridiagonalQL(d, e, rows?)   d: diagonal (n), overwritten with the eigenvalues, unsorted
 *                                e: e[i] couples i and i+1 (n values, e[n−1] ignored), destroyed
 *                                rows: n×n row-major basis whose row i belongs to coordinate i;
 *                                every plane rotation is applied to it (null: values only, O(n²))
 *
 * Without rows the cost is O(n²); with rows each rotation touches two contiguous rows of n,
 * about 3n³ flops in all, which is why the top-r solver (top-symmetric-eigen.ts) never asks
 * for them.
 */

const MAX_QL_ITERATIONS_PER_VALUE = 64;

export function tridiagonalQL(d: Float64Array, e: Float64Array, rows: Float64Array | null = null): void {
  const n = d.length;
  if (e.length !== n) throw new RangeError(`off-diagonal has ${e.length} entries, expected ${n}`);
  if (n === 0) return;
  e[n - 1] = 0;
  let shiftTotal = 0;
  let norm = 0;
  const eps = Number.EPSILON;
  for (let l = 0; l < n; l++) {
    norm = Math.max(norm, Math.abs(d[l] as number) + Math.abs(e[l] as number));
    // Find the first negligible off-diagonal element at or after l: the block l..m splits off.
    let m = l;
    while (m < n && Math.abs(e[m] as number) > eps * norm) m++;
    if (m > l) {
      let iterations = 0;
      do {
        if (++iterations > MAX_QL_ITERATIONS_PER_VALUE) throw new Error(`QL iteration did not converge for eigenvalue ${l}`);
        // Shift from the leading 2×2 block.
        let g = d[l] as number;
        let p = ((d[l + 1] as number) - g) / (2 * (e[l] as number));
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = (e[l] as number) / (p + r);
        d[l + 1] = (e[l] as number) * (p + r);
        const dNext = d[l + 1] as number;
        let h = g - (d[l] as number);
        for (let i = l + 2; i < n; i++) d[i] = (d[i] as number) - h;
        shiftTotal += h;
        // Chase the bulge with Givens rotations from m−1 up to l.
        p = d[m] as number;
        let c = 1;
        let c2 = 1;
        let c3 = 1;
        const eNext = e[l + 1] as number;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * (e[i] as number);
          h = c * p;
          r = Math.hypot(p, e[i] as number);
          e[i + 1] = s * r;
          s = (e[i] as number) / r;
          c = p / r;
          p = c * (d[i] as number) - s * g;
          d[i + 1] = h + s * (c * g + s * (d[i] as number));
          if (rows !== null) rotateRows(rows, n, i, c, s);
        }
        p = (-s * s2 * c3 * eNext * (e[l] as number)) / dNext;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l] as number) > eps * norm);
    }
    d[l] = (d[l] as number) + shiftTotal;
    e[l] = 0;
  }
}

function rotateRows(rows: Float64Array, n: number, i: number, c: number, s: number): void {
  const rowI = i * n;
  const rowNext = (i + 1) * n;
  for (let k = 0; k < n; k++) {
    const a = rows[rowNext + k] as number;
    const b = rows[rowI + k] as number;
    rows[rowNext + k] = s * b + c * a;
    rows[rowI + k] = c * b - s * a;
  }
}
