import { describe, expect, it } from 'vitest';
import { projectFourRows, projectRow, transposedBasis, type RowView } from './row-projection.ts';
import { lcg } from './testing/matrices.ts';

describe('row projection kernels', () => {
  const dim = 11;
  const next = lcg(9);
  const rows = Float32Array.from({ length: 5 * dim }, next);
  const plain = (row: number, basis: Float32Array, rank: number, i: number) => {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += (rows[row * dim + j] as number) * (basis[j * rank + i] as number);
    return sum;
  };

  it('give each row·V_i of the plain loop, for odd and even ranks, four rows at a time and one', () => {
    for (const rank of [1, 2, 5, 6]) {
      const basis = Float32Array.from({ length: dim * rank }, next);
      const basisT = transposedBasis(basis, dim, rank);
      const four = new Float64Array(4 * rank);
      const views = [4, 0, 2, 1].map((r) => ({ values: rows, offset: r * dim })) as [RowView, RowView, RowView, RowView];
      projectFourRows(views, basisT, rank, four);
      [4, 0, 2, 1].forEach((r, k) => {
        for (let i = 0; i < rank; i++) expect(four[k * rank + i]).toBeCloseTo(plain(r, basis, rank, i), 14);
      });
      const one = new Float64Array(rank);
      projectRow({ values: rows, offset: 3 * dim }, basisT, rank, one);
      for (let i = 0; i < rank; i++) expect(one[i]).toBeCloseTo(plain(3, basis, rank, i), 14);
    }
  });

  it('transposes V (dim × rank) into direction-major float64', () => {
    expect(Array.from(transposedBasis(Float32Array.of(1, 2, 3, 4, 5, 6), 3, 2))).toEqual([1, 3, 5, 2, 4, 6]);
  });
});
