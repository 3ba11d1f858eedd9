import { describe, expect, it } from 'vitest';
import { tridiagonalSpectrum, tridiagonalVectors } from './tridiagonal-spectrum.ts';

/** T as a dense matrix, for residual checks. */
function dense(diag: number[], off: number[]): Float64Array {
  const n = diag.length;
  const a = new Float64Array(n * n);
  diag.forEach((d, i) => (a[i * n + i] = d));
  off.forEach((e, i) => (a[i * n + i + 1] = a[(i + 1) * n + i] = e));
  return a;
}

function residual(a: Float64Array, n: number, value: number, v: Float64Array): number {
  let worst = 0;
  for (let r = 0; r < n; r++) {
    let av = 0;
    for (let c = 0; c < n; c++) av += (a[r * n + c] as number) * (v[c] as number);
    worst = Math.max(worst, Math.abs(av - value * (v[r] as number)));
  }
  return worst;
}

describe('tridiagonalSpectrum / tridiagonalVectors', () => {
  it('finds the 1D Laplacian tridiag(−1, 2, −1): λ_k = 2 − 2cos(kπ/(n+1)), v_k(i) ∝ sin(ikπ/(n+1))', () => {
    const n = 40;
    const diag = new Float64Array(n).fill(2);
    const off = new Float64Array(n).fill(-1);
    const spectrum = tridiagonalSpectrum(diag, off);
    const expected = Array.from({ length: n }, (_, k) => 2 - 2 * Math.cos(((k + 1) * Math.PI) / (n + 1))).sort((x, y) => y - x);
    expected.forEach((v, i) => expect(spectrum.values[i]).toBeCloseTo(v, 13));
    const vectors = tridiagonalVectors(diag, off, spectrum, 3) as Float64Array;
    // Largest eigenvalue: k = n, v(i) ∝ sin(i·nπ/(n+1)), i = 1..n.
    const exact = Array.from({ length: n }, (_, i) => Math.sin(((i + 1) * n * Math.PI) / (n + 1)));
    const norm = Math.hypot(...exact);
    const sign = Math.sign((vectors[0] as number) * (exact[0] as number));
    exact.forEach((x, i) => expect(sign * (vectors[i] as number)).toBeCloseTo(x / norm, 12));
  });

  it('keeps eigenvectors on their block when the matrix splits, and orthogonal across equal eigenvalues', () => {
    // Two identical 3×3 blocks (off[2] = 0): every eigenvalue appears twice.
    const d = [2, 1, 3, 2, 1, 3];
    const e = [0.5, -0.7, 0, 0.5, -0.7, 0];
    const spectrum = tridiagonalSpectrum(Float64Array.from(d), Float64Array.from(e));
    expect(spectrum.values[0]).toBeCloseTo(spectrum.values[1] as number, 14);
    const vectors = tridiagonalVectors(Float64Array.from(d), Float64Array.from(e), spectrum, 6) as Float64Array;
    const a = dense(d, e.slice(0, 5));
    for (let k = 0; k < 6; k++) {
      const v = vectors.subarray(k * 6, k * 6 + 6);
      expect(residual(a, 6, spectrum.values[k] as number, v)).toBeLessThan(1e-14);
      const outside = spectrum.blockStart[k] === 0 ? v.subarray(3) : v.subarray(0, 3);
      expect(Array.from(outside).every((x) => x === 0)).toBe(true);
      for (let j = 0; j < k; j++) {
        const dot = v.reduce((sum, x, i) => sum + x * (vectors[j * 6 + i] as number), 0);
        expect(Math.abs(dot)).toBeLessThan(1e-14);
      }
    }
  });

  it('separates a cluster of nearly equal eigenvalues into orthonormal vectors', () => {
    // diag(1 + 1e-13·i) coupled by 1e-14: forty eigenvalues within 1e-11 of each other.
    const n = 40;
    const d = Array.from({ length: n }, (_, i) => 1 + 1e-13 * i);
    const e = Array.from({ length: n }, () => 1e-14);
    const spectrum = tridiagonalSpectrum(Float64Array.from(d), Float64Array.from(e));
    const vectors = tridiagonalVectors(Float64Array.from(d), Float64Array.from(e), spectrum, n) as Float64Array;
    const a = dense(d, e.slice(0, n - 1));
    for (let k = 0; k < n; k++) {
      expect(residual(a, n, spectrum.values[k] as number, vectors.subarray(k * n, (k + 1) * n))).toBeLessThan(1e-14);
      for (let j = 0; j <= k; j++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += (vectors[k * n + i] as number) * (vectors[j * n + i] as number);
        expect(Math.abs(dot - (j === k ? 1 : 0))).toBeLessThan(1e-13);
      }
    }
  });
});
