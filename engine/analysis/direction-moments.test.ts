import { describe, expect, it } from 'vitest';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { magnitudeThreshold, thresholdOf } from '../crane/magnitude-threshold.ts';
import { projectedMoments } from './direction-moments.ts';

/** The sums as plain float64 loops: T(δ) stored first, each dot product over j from +0, rows in order. */
function reference(gradR: Float32Array, gradA: Float32Array, delta: Float32Array, keepQuantile: number, projector: GspProjector) {
  const { dim, rank, basis } = projector;
  const thresholded = magnitudeThreshold(delta, keepQuantile).values;
  const vectors = [gradR, gradA, thresholded, delta];
  const scalars = new Float64Array(6);
  for (let j = 0; j < delta.length; j++) {
    const [r, a, t, d] = vectors.map((v) => v[j] as number) as [number, number, number, number];
    [r * t, a * t, t * t, r * d, a * d, d * d].forEach((x, k) => (scalars[k] = (scalars[k] as number) + x));
  }
  const directions = new Float64Array(rank * 6);
  for (let row = 0; row < delta.length / dim; row++) {
    for (let i = 0; i < rank; i++) {
      const [r, a, t, d] = vectors.map((v) => {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += (v[row * dim + j] as number) * (basis[j * rank + i] as number);
        return sum;
      }) as [number, number, number, number];
      [r * t, a * t, t * t, r * d, a * d, d * d].forEach((x, k) => (directions[i * 6 + k] = (directions[i * 6 + k] as number) + x));
    }
  }
  return { scalars, directions };
}

function randomCase(dim: number, rows: number, rank: number, seed: number) {
  let state = seed;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
  const random = (n: number, scale: number) => Float32Array.from({ length: n }, () => next() * scale);
  const projector: GspProjector = { dim, rank, basis: random(dim * rank, 0.2), sigma: new Float64Array(rank).fill(1) };
  return { projector, gradR: random(rows * dim, 1e-2), gradA: random(rows * dim, 3e-2), delta: random(rows * dim, 1e-3) };
}

describe('projectedMoments', () => {
  it.each([
    // rank below, at and past a block of four; q with a rescale that is not a power of two; a case
    // whose rows span several 1 MiB chunks (300 × 32 bytes a row → 109 rows a chunk).
    { dim: 9, rows: 7, rank: 5, q: 0.5 },
    { dim: 16, rows: 3, rank: 4, q: 0.3 },
    { dim: 5, rows: 11, rank: 1, q: 0.9 },
    { dim: 300, rows: 250, rank: 7, q: 0.5 },
  ])('equals the float64 loops bit for bit: d $dim, $rows rows, rank $rank, q $q', ({ dim, rows, rank, q }) => {
    const { projector, gradR, gradA, delta } = randomCase(dim, rows, rank, dim * 31 + rank);
    const got = projectedMoments({ gradR, gradA, delta, ...thresholdOf(delta, q) }, projector);
    const want = reference(gradR, gradA, delta, q, projector);
    expect(Array.from(got.scalars)).toEqual(Array.from(want.scalars));
    expect(Array.from(got.directions)).toEqual(Array.from(want.directions));
  });

  it('a second projector of another size reuses the kernel without stale values', () => {
    const big = randomCase(64, 40, 9, 3);
    const small = randomCase(8, 5, 2, 4);
    projectedMoments({ ...big, ...thresholdOf(big.delta, 0.5) }, big.projector);
    const got = projectedMoments({ ...small, ...thresholdOf(small.delta, 0.5) }, small.projector);
    expect(Array.from(got.directions)).toEqual(Array.from(reference(small.gradR, small.gradA, small.delta, 0.5, small.projector).directions));
  });

  it('refuses values that are not whole rows', () => {
    const { projector, gradR, gradA, delta } = randomCase(4, 2, 1, 5);
    const cut = { gradR: gradR.subarray(1), gradA: gradA.subarray(1), delta: delta.subarray(1), threshold: 0, rescale: 2 };
    expect(() => projectedMoments(cut, projector)).toThrow(/7 values are not rows of 4/);
  });
});
