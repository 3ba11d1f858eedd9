import { describe, expect, it } from 'vitest';
import { eigenResiduals, lcg } from './testing/matrices.ts';
import { reflect, reflectAll, thinGramEigen } from './thin-gram-eigen.ts';
import { topSymmetricEigen } from './top-symmetric-eigen.ts';

function rowsAndGram(count: number, dim: number, seed: number): { rows: Float64Array; gram: Float64Array } {
  const next = lcg(seed);
  const rows = Float64Array.from({ length: count * dim }, (_, i) => next() * (i % dim < 2 ? 40 : 1));
  const gram = new Float64Array(dim * dim);
  for (let r = 0; r < count; r++) {
    for (let i = 0; i < dim; i++) for (let j = 0; j < dim; j++) gram[i * dim + j] = (gram[i * dim + j] as number) + (rows[r * dim + i] as number) * (rows[r * dim + j] as number);
  }
  return { rows, gram };
}

describe('thinGramEigen', () => {
  it('gives HᵀH eigenpairs from H: values as the dense solver, residual and orthogonality at rounding level', () => {
    for (const [count, dim, wanted] of [[12, 50, 12], [30, 64, 20], [1, 9, 1], [7, 7, 7]] as const) {
      const { rows, gram } = rowsAndGram(count, dim, count + dim);
      const thin = thinGramEigen(rows, count, dim, () => wanted);
      const dense = topSymmetricEigen(gram, dim, () => 0);
      const scale = dense.values[0] as number;
      expect(thin.values.length).toBe(dim);
      thin.values.forEach((v, i) => expect(Math.abs(v - Math.max(dense.values[i] as number, 0)) / scale).toBeLessThan(1e-13));
      expect(Array.from(thin.values.subarray(count)).every((v) => v === 0)).toBe(true);
      const { residual, orthogonality } = eigenResiduals(gram, dim, thin.values, thin.vectors, thin.count);
      expect(thin.count).toBe(wanted);
      expect(residual / scale).toBeLessThan(1e-13);
      expect(orthogonality).toBeLessThan(1e-13);
    }
  });

  it('handles a zero row and duplicated rows (rank below the row count)', () => {
    const dim = 6;
    const rows = Float64Array.of(1, 2, 0, 0, 1, 0, 1, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    const thin = thinGramEigen(rows, 3, dim, () => 1);
    expect(thin.values[0]).toBeCloseTo(12, 12); // two copies of a row with ‖r‖² = 6
    expect(thin.values[1]).toBeCloseTo(0, 12);
    const v = Array.from(thin.vectors).map((x) => x * Math.sign(thin.vectors[0] as number) * Math.sqrt(6));
    [1, 2, 0, 0, 1, 0].forEach((x, i) => expect(v[i]).toBeCloseTo(x, 12));
  });

  it('reflects four vectors at once to the same bits as one at a time (the solver\'s results do not depend on the blocking)', () => {
    const dim = 37;
    const next = lcg(5);
    const reflector = Float64Array.from({ length: dim }, () => next());
    const start = Float64Array.from({ length: 6 * dim }, () => next() * 3);
    for (const offsets of [[0, 1, 2, 3], [2, 3, 5], [4]].map((ks) => ks.map((k) => k * dim))) {
      const single = Float64Array.from(start);
      const blocked = Float64Array.from(start);
      for (const x of offsets) reflect(reflector, 0, 1.25, single, x, 3, dim);
      reflectAll(reflector, 0, 1.25, blocked, offsets, 3, dim);
      expect(Buffer.from(blocked.buffer).equals(Buffer.from(single.buffer))).toBe(true);
      // Entries below j stay, the rest moved: the step did something.
      expect(blocked.subarray(offsets[0] as number, (offsets[0] as number) + 3)).toEqual(start.subarray(offsets[0] as number, (offsets[0] as number) + 3));
      expect(blocked[(offsets[0] as number) + 5]).not.toBe(start[(offsets[0] as number) + 5]);
    }
  });

  it('rejects more rows than columns and misshaped input', () => {
    expect(() => thinGramEigen(new Float64Array(12), 4, 3, () => 1)).toThrow(/no more rows than columns/);
    expect(() => thinGramEigen(new Float64Array(5), 2, 3, () => 1)).toThrow(/not 2 rows of 3/);
  });
});
