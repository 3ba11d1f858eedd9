import { describe, expect, it } from 'vitest';
import { projectInputSide, type GspProjector } from '../crane/gsp-projector.ts';
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import { GRAD_A, GRAD_R, MOMENTS, NORM, RAW, tensorMoments, THRESHOLDED } from './tensor-moments.ts';

const f = (...v: number[]) => Float32Array.from(v);

describe('tensorMoments', () => {
  // One row δ = (1, −3, 0.5, 2): lower median 1 → T(δ) = (0, −6, 0, 4).
  const delta = f(1, -3, 0.5, 2);
  const gradR = f(1, 1, 1, 1);
  const gradA = f(0, 1, 0, -1);
  // V = e₁ (coordinate 1), so U·V_1 = U[1].
  const e1: GspProjector = { dim: 4, rank: 1, basis: f(0, 1, 0, 0), sigma: Float64Array.of(1) };

  it('hand-computed scalars and per-direction products', () => {
    const { scalars, directions } = tensorMoments({ delta, gradR, gradA }, 0.5, e1);
    expect(Array.from(scalars)).toEqual([-2, -10, 52, 0.5, -5, 14.25]);
    // (gV)(UV): g_R[1]·U[1], g_A[1]·U[1], U[1]²
    expect(Array.from(directions as Float64Array)).toEqual([-6, -6, 36, -3, -3, 9]);
    expect(tensorMoments({ delta, gradR, gradA }, 0.5).directions).toBeNull();
  });

  it('‖Π(U)‖² = ‖U‖² − Σ(2w − w²)‖UV_i‖² and g·Π(U) = g·U − Σ w (gV_i)(UV_i), against projectInputSide', () => {
    // An orthonormal basis of 2 directions in R⁴ (rotations of e₀, e₂), 3 rows.
    const c = Math.cos(0.3), s = Math.sin(0.3);
    const projector: GspProjector = { dim: 4, rank: 2, basis: f(c, 0, s, 0, 0, 0.6, 0, 0.8), sigma: Float64Array.of(2, 0.1) };
    const rows = f(0.3, -1.2, 0.7, 2.2, -0.4, 1.1, 0.9, -0.6, 1.5, 0.2, -0.8, 0.05);
    const g = f(0.5, 0.1, -0.7, 0.3, 0.9, -0.2, 0.4, 0.6, -0.1, 0.8, 0.2, -0.5);
    const w = sigmoidWeights(projector.sigma, 0.2);
    const { scalars, directions } = tensorMoments({ delta: rows, gradR: g, gradA: g }, 0.5, projector);
    const projected = projectInputSide(rows, 4, projector, w);
    let norm = 0, dot = 0;
    projected.forEach((v, i) => { norm += v * v; dot += v * (g[i] as number); });
    const d = directions as Float64Array;
    const predictedNorm = (scalars[RAW + NORM] as number) - [0, 1].reduce((sum, i) => sum + (2 * (w[i] as number) - (w[i] as number) ** 2) * (d[i * MOMENTS + RAW + NORM] as number), 0);
    const predictedDot = (scalars[RAW + GRAD_R] as number) - [0, 1].reduce((sum, i) => sum + (w[i] as number) * (d[i * MOMENTS + RAW + GRAD_R] as number), 0);
    expect(predictedNorm).toBeCloseTo(norm, 6);
    expect(predictedDot).toBeCloseTo(dot, 6);
    expect(scalars[THRESHOLDED + GRAD_A]).toBe(scalars[THRESHOLDED + GRAD_R]);
  });

  it('per-direction moments equal the row-at-a-time float64 sums bit for bit on a random rank-5 projector', () => {
    const dim = 9, rank = 5, rows = 7;
    let seed = 11;
    const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
    const random = (n: number) => Float32Array.from({ length: n }, next);
    const projector: GspProjector = { dim, rank, basis: random(dim * rank), sigma: Float64Array.of(5, 4, 3, 2, 1) };
    const inputs = { delta: random(rows * dim), gradR: random(rows * dim), gradA: random(rows * dim) };
    const { directions } = tensorMoments(inputs, 0.5, projector);
    const thresholded = inputs.delta.map((x) => {
      const median = [...inputs.delta].map(Math.abs).sort((a, b) => a - b)[Math.floor(inputs.delta.length / 2) - 1] as number;
      return Math.abs(x) > median ? 2 * x : 0;
    });
    const along = (v: Float32Array, row: number, i: number) => {
      let sum = 0;
      for (let j = 0; j < dim; j++) sum += (v[row * dim + j] as number) * (projector.basis[j * rank + i] as number);
      return sum;
    };
    for (let i = 0; i < rank; i++) {
      const expected = new Float64Array(MOMENTS);
      for (let row = 0; row < rows; row++) {
        const [r, a, t, d] = [inputs.gradR, inputs.gradA, thresholded, inputs.delta].map((v) => along(v, row, i)) as [number, number, number, number];
        [r * t, a * t, t * t, r * d, a * d, d * d].forEach((x, k) => (expected[k] = (expected[k] as number) + x));
      }
      // Same products, same order (j within a row, rows in order): equal to the last bit.
      expected.forEach((x, k) => expect((directions as Float64Array)[i * MOMENTS + k]).toBe(x));
    }
  });

  it('rejects misaligned inputs', () => {
    expect(() => tensorMoments({ delta, gradR: f(1), gradA }, 0.5)).toThrow(/differ in length/);
    expect(() => tensorMoments({ delta: f(1, 2, 3), gradR: f(1, 2, 3), gradA: f(1, 2, 3) }, 0.5, e1)).toThrow(/not rows of 4/);
  });
});
