/**
 * The low-rank curvature against the dense one it was made from: equal at full rank, and within
 * the stated bound (max |λ dropped|·‖c‖²) when eigenvalues are dropped, on a random indefinite M.
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
const quadratic = (mx: Float64Array, c: Float64Array) => c.reduce((sum, ci, i) => sum + ci * (mx[i] as number), 0);

function applied(matrix: Parameters<typeof curvatureOperator>[0], x: Float64Array, y: Float64Array): [Float64Array, Float64Array] {
  const mx = new Float64Array(B);
  const my = new Float64Array(B);
  curvatureOperator(matrix, B).apply(x, y, mx, my);
  return [mx, my];
}

describe('curvature operator', () => {
  it('applies the full-rank factor exactly as the dense matrix', () => {
    const [x, y] = [vector(), vector()];
    const [dx, dy] = applied({ dense }, x, y);
    const lowRank = factorDense(dense, B, B);
    expect(lowRank.dropped).toBe(0);
    const [fx, fy] = applied({ lowRank }, x, y);
    fx.forEach((v, i) => expect(v).toBeCloseTo(dx[i] as number, 10));
    fy.forEach((v, i) => expect(v).toBeCloseTo(dy[i] as number, 10));
    expect(curvatureOperator({ lowRank }, B).errorBound(x)).toBe(0);
  });

  for (const rank of [1, 6, 18]) {
    it(`stays within max|λ dropped|·‖c‖² of cᵀMc at rank ${rank}`, () => {
      const lowRank = factorDense(dense, B, rank);
      const operator = curvatureOperator({ lowRank }, B);
      expect(lowRank.weights).toHaveLength(rank);
      let worst = 0;
      for (let trial = 0; trial < 20; trial++) {
        const c = vector();
        const exact = quadratic(applied({ dense }, c, c)[0], c);
        const approx = quadratic(applied({ lowRank }, c, c)[0], c);
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
