/**
 * The per-group quadratic forms against cᵀMc written out from the dense matrix, and the low-rank
 * curvature against the dense one it was made from: equal at full rank, and within the stated
 * bound (max |λ dropped|·‖c‖²) when eigenvalues are dropped, on a random indefinite M.
 */
import { describe, expect, it } from 'vitest';
import { uniformStream } from '../crane/tensor-random-stream.ts';
import { curvatureOperator, factorDense } from './curvature-operator.ts';

const B = 24;
const random = uniformStream(3, 'curvature-operator');
const dense = (() => {
  const m = new Array<number>(B * B).fill(0);
  for (let i = 0; i < B; i++) for (let j = 0; j <= i; j++) m[i * B + j] = m[j * B + i] = random() * 2 - 1;
  return m;
})();
const vector = () => Float64Array.from({ length: B }, () => random() * 2 - 1);
/** Σ_{b∈group} x_b (My)_b over the dense matrix, term by term. */
function bilinear(x: Float64Array, y: Float64Array, inGroup: (b: number) => boolean = () => true): number {
  let sum = 0;
  for (let b = 0; b < B; b++) for (let j = 0; j < B; j++) if (inGroup(b)) sum += (x[b] as number) * (dense[b * B + j] as number) * (y[j] as number);
  return sum;
}

/** Group 0's three forms with every direction in it: [c0ᵀMc0, 2·c0ᵀMc1, c1ᵀMc1]. */
function forms(matrix: Parameters<typeof curvatureOperator>[0], c0: Float64Array, c1: Float64Array, groupOf = new Int32Array(B), groups = 1): Float64Array {
  const out = new Float64Array(3 * groups);
  curvatureOperator(matrix, B).groupForms(c0, c1, groupOf, groups, out);
  return out;
}

describe('curvature operator', () => {
  it('splits cᵀMc along α into per-group forms, dense and full-rank low-rank alike', () => {
    const [c0, c1] = [vector(), vector()];
    const groupOf = Int32Array.from({ length: B }, (_, b) => b % 3);
    const lowRank = factorDense(dense, B, B);
    expect(lowRank.dropped).toBe(0);
    for (const matrix of [{ dense }, { lowRank }]) {
      const out = forms(matrix, c0, c1, groupOf, 3);
      for (let g = 0; g < 3; g++) {
        const inGroup = (b: number) => b % 3 === g;
        expect(out[3 * g]).toBeCloseTo(bilinear(c0, c0, inGroup), 10);
        expect(out[3 * g + 1]).toBeCloseTo(bilinear(c0, c1, inGroup) + bilinear(c1, c0, inGroup), 10);
        expect(out[3 * g + 2]).toBeCloseTo(bilinear(c1, c1, inGroup), 10);
      }
      // The groups' forms at α sum to cᵀMc at c = c0 + α·c1.
      const alpha = 0.37;
      const c = c0.map((x, b) => x + alpha * (c1[b] as number));
      const total = [0, 1, 2].reduce((sum, g) => sum + (out[3 * g] as number) + alpha * (out[3 * g + 1] as number) + alpha * alpha * (out[3 * g + 2] as number), 0);
      expect(total).toBeCloseTo(bilinear(c, c), 10);
    }
    expect(curvatureOperator({ lowRank }, B).errorBound(c0)).toBe(0);
  });

  for (const rank of [1, 6, 18]) {
    it(`stays within max|λ dropped|·‖c‖² of cᵀMc at rank ${rank}`, () => {
      const lowRank = factorDense(dense, B, rank);
      const operator = curvatureOperator({ lowRank }, B);
      expect(lowRank.weights).toHaveLength(rank);
      let worst = 0;
      for (let trial = 0; trial < 20; trial++) {
        const c = vector();
        const none = new Float64Array(B);
        const exact = forms({ dense }, c, none)[0] as number;
        const approx = forms({ lowRank }, c, none)[0] as number;
        const bound = operator.errorBound(c);
        expect(Math.abs(exact - approx)).toBeLessThanOrEqual(bound + 1e-9);
        worst = Math.max(worst, Math.abs(exact - approx) / bound);
      }
      expect(worst).toBeGreaterThan(0.01); // truncation does change the form: the bound is not vacuous
    });
  }

  it('refuses a factor whose sizes do not match the directions', () => {
    const lowRank = factorDense(dense, B, 3);
    expect(() => curvatureOperator({ lowRank }, B + 1)).toThrow(/low-rank curvature/);
    expect(() => curvatureOperator({ dense }, B - 1)).toThrow(/dense curvature/);
  });
});
