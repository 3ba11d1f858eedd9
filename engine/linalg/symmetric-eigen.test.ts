import { describe, expect, it } from 'vitest';
import { symmetricEigen } from './symmetric-eigen.ts';

function randomSymmetric(n: number, seed: number): Float64Array {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = next();
  return a;
}

/** max |A·v_i − λ_i·v_i| and max |V·Vᵀ − I| over all pairs. */
function residuals(a: Float64Array, n: number): { reconstruction: number; orthogonality: number } {
  const { values, vectors } = symmetricEigen(a, n);
  let reconstruction = 0;
  let orthogonality = 0;
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < n; r++) {
      let av = 0;
      for (let c = 0; c < n; c++) av += (a[r * n + c] as number) * (vectors[i * n + c] as number);
      reconstruction = Math.max(reconstruction, Math.abs(av - (values[i] as number) * (vectors[i * n + r] as number)));
    }
    for (let j = 0; j < n; j++) {
      let dot = 0;
      for (let c = 0; c < n; c++) dot += (vectors[i * n + c] as number) * (vectors[j * n + c] as number);
      orthogonality = Math.max(orthogonality, Math.abs(dot - (i === j ? 1 : 0)));
    }
  }
  return { reconstruction, orthogonality };
}

describe('symmetricEigen', () => {
  it('solves a 2×2 by hand: [[2,1],[1,2]] has 3 along (1,1)/√2 and 1 along (1,−1)/√2', () => {
    const { values, vectors } = symmetricEigen(Float64Array.from([2, 1, 1, 2]), 2);
    expect(values[0]).toBeCloseTo(3, 14);
    expect(values[1]).toBeCloseTo(1, 14);
    expect(Math.abs(vectors[0] as number)).toBeCloseTo(Math.SQRT1_2, 14);
    expect((vectors[0] as number) * (vectors[1] as number)).toBeGreaterThan(0);
    expect((vectors[2] as number) * (vectors[3] as number)).toBeLessThan(0);
  });

  it('returns a diagonal matrix as is, sorted descending', () => {
    const { values } = symmetricEigen(Float64Array.from([1, 0, 0, 0, 5, 0, 0, 0, -2]), 3);
    expect(Array.from(values)).toEqual([5, 1, -2]);
  });

  it('finds the known spectrum of the 1D Laplacian tridiag(−1, 2, −1): 2 − 2cos(kπ/(n+1))', () => {
    const n = 12;
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      a[i * n + i] = 2;
      if (i > 0) a[i * n + i - 1] = a[(i - 1) * n + i] = -1;
    }
    const expected = Array.from({ length: n }, (_, k) => 2 - 2 * Math.cos(((k + 1) * Math.PI) / (n + 1))).sort((x, y) => y - x);
    const { values } = symmetricEigen(a, n);
    expected.forEach((v, i) => expect(values[i]).toBeCloseTo(v, 12));
  });

  it('reconstructs A·V = V·Λ with orthonormal V on random matrices, including rank-deficient Gram matrices', () => {
    for (const n of [1, 3, 8, 33]) {
      const { reconstruction, orthogonality } = residuals(randomSymmetric(n, n), n);
      expect(reconstruction).toBeLessThan(1e-12);
      expect(orthogonality).toBeLessThan(1e-12);
    }
    // HᵀH of a 3×10 H: rank 3, seven zero eigenvalues.
    const h = randomSymmetric(10, 3).subarray(0, 30);
    const gram = new Float64Array(100);
    for (let r = 0; r < 3; r++) for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) gram[i * 10 + j] = (gram[i * 10 + j] as number) + (h[r * 10 + i] as number) * (h[r * 10 + j] as number);
    const { values } = symmetricEigen(gram, 10);
    expect(Array.from(values.subarray(3)).every((v) => Math.abs(v) < 1e-14)).toBe(true);
    expect(residuals(gram, 10).reconstruction).toBeLessThan(1e-13);
  });

  it('handles repeated eigenvalues (identity, zero)', () => {
    const eye = new Float64Array(16);
    for (let i = 0; i < 4; i++) eye[i * 4 + i] = 1;
    expect(Array.from(symmetricEigen(eye, 4).values)).toEqual([1, 1, 1, 1]);
    expect(residuals(new Float64Array(16), 4).orthogonality).toBeLessThan(1e-15);
  });

  it('rejects wrong sizes and non-finite entries', () => {
    expect(() => symmetricEigen(new Float64Array(3), 2)).toThrow(RangeError);
    expect(() => symmetricEigen(Float64Array.from([Number.NaN]), 1)).toThrow(/non-finite/);
  });
});
