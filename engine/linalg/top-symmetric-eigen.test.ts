import { describe, expect, it } from 'vitest';
import { symmetricEigen } from './symmetric-eigen.ts';
import { eigenResiduals, randomGram, randomSymmetric } from './testing/matrices.ts';
import { topSymmetricEigen } from './top-symmetric-eigen.ts';

describe('topSymmetricEigen', () => {
  it('agrees with the dense solver on every eigenvalue and gives the wanted leading vectors', () => {
    for (const [n, rows, count] of [[60, 200, 25], [80, 20, 30], [40, 1000, 40]] as const) {
      const gram = randomGram(n, rows, n + rows);
      const dense = symmetricEigen(gram, n);
      const top = topSymmetricEigen(gram, n, () => count);
      const scale = dense.values[0] as number;
      expect(top.count).toBe(count);
      top.values.forEach((v, i) => expect(Math.abs(v - (dense.values[i] as number)) / scale).toBeLessThan(1e-14));
      const { residual, orthogonality } = eigenResiduals(gram, n, top.values, top.vectors, count);
      // ‖GV − VΛ‖ at rounding level of ‖G‖, as the dense solver's; orthonormal to rounding.
      expect(residual / scale).toBeLessThan(1e-13);
      expect(orthogonality).toBeLessThan(1e-13);
      // Where eigenvalues are well separated the vectors are the dense solver's up to sign.
      for (let i = 0; i < 3; i++) {
        let dot = 0;
        for (let j = 0; j < n; j++) dot += (top.vectors[i * n + j] as number) * (dense.vectors[i * n + j] as number);
        expect(Math.abs(dot)).toBeCloseTo(1, 10);
      }
    }
  });

  it('passes the descending eigenvalues to `wanted` and computes no vector when it says 0', () => {
    const a = randomSymmetric(12, 4);
    let seen: number[] = [];
    const top = topSymmetricEigen(a, 12, (values) => {
      seen = Array.from(values);
      return 0;
    });
    const dense = symmetricEigen(a, 12).values;
    seen.forEach((v, i) => expect(v).toBeCloseTo(dense[i] as number, 13));
    expect(top.count).toBe(0);
    expect(top.vectors.length).toBe(0);
  });

  it('handles a zero matrix, the identity and 1×1', () => {
    const zero = topSymmetricEigen(new Float64Array(9), 3, () => 3);
    expect(eigenResiduals(new Float64Array(9), 3, zero.values, zero.vectors, 3).orthogonality).toBeLessThan(1e-15);
    const eye = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
    const top = topSymmetricEigen(eye, 3, () => 3);
    expect(Array.from(top.values)).toEqual([1, 1, 1]);
    expect(eigenResiduals(eye, 3, top.values, top.vectors, 3).orthogonality).toBeLessThan(1e-15);
    expect(Array.from(topSymmetricEigen(Float64Array.of(-2), 1, () => 1).vectors)).toEqual([1]);
  });

  it('rejects bad input', () => {
    expect(() => topSymmetricEigen(new Float64Array(3), 2, () => 1)).toThrow(RangeError);
    expect(() => topSymmetricEigen(Float64Array.of(Number.NaN), 1, () => 1)).toThrow(/non-finite/);
  });
});
