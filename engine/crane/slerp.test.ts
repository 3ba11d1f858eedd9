import { describe, expect, it } from 'vitest';
import { baselineEdit } from './baselines.ts';
import { baselineSlerpRows, routerSlerpInto } from './slerp.ts';
import { referenceSlerpTensor } from './testing/reference-slerp.ts';
import { uniformStream } from './tensor-random-stream.ts';

/** Row (1, 0) and a row of norm `scale` at sin φ = `sinPhi` from it (or from (−1, 0)), as float32 values. */
function rowPair(sinPhi: number, scale: number, antiParallel = false): [number[], number[]] {
  const cosPhi = Math.sqrt(1 - sinPhi * sinPhi) * (antiParallel ? -1 : 1);
  return [[1, 0], [Math.fround(scale * cosPhi), Math.fround(scale * sinPhi)]];
}

function expectMatchesReference(a: number[], b: number[], shape: readonly number[], t: number): Float32Array {
  const got = baselineSlerpRows(Float32Array.from(a), Float32Array.from(b), shape, t);
  const want = referenceSlerpTensor(Array.from(Float32Array.from(a)), Array.from(Float32Array.from(b)), shape, t);
  const scale = Math.max(1e-30, ...want.map(Math.abs));
  want.forEach((w, i) => expect(Math.abs((got[i] as number) - w) / scale).toBeLessThan(1e-6));
  return got;
}

const lerp = (a: number[], b: number[], t: number) => a.map((x, i) => (1 - t) * x + t * (b[i] as number));

describe('baselineSlerpRows (baseline/slerp.py)', () => {
  it('matches the step-by-step reference on random 2-D, 3-D and 1-D tensors', () => {
    const next = uniformStream(7, 'slerp');
    const random = (n: number) => Array.from({ length: n }, () => next() * 2 - 1);
    for (const shape of [[5, 8], [3, 2, 4], [16]]) {
      const n = shape.reduce((x, y) => x * y, 1);
      for (const t of [0, 0.3, 0.5, 1]) expectMatchesReference(random(n), random(n), shape, t);
    }
  });

  it('interpolates the unit directions and the norms separately: norm (1−t)‖a‖ + t‖b‖', () => {
    const got = baselineSlerpRows(Float32Array.of(1, 0), Float32Array.of(0, 3), [1, 2], 0.5);
    expect(Math.hypot(got[0] as number, got[1] as number)).toBeCloseTo(2, 6);
    expect(got[0]).toBeCloseTo(Math.SQRT2, 6); // direction (1,1)/√2 at half the right angle
    // The router rule on the same raw rows gives a different point (norms are not separated).
    const router = new Float32Array(2);
    routerSlerpInto(Float32Array.of(1, 0), Float32Array.of(0, 3), 0.5, router);
    expect(Math.abs((router[1] as number) - (got[1] as number))).toBeGreaterThan(0.5);
  });

  it('near-parallel rows: linear just below |sin Ω| = 1e-3, on the arc just above', () => {
    const [a1, b1] = rowPair(0.9e-3, 2);
    expect(Array.from(expectMatchesReference(a1, b1, [1, 2], 0.3))).toEqual(Array.from(Float32Array.from(lerp(a1, b1, 0.3))));
    const [a2, b2] = rowPair(1.1e-3, 2);
    const arc = expectMatchesReference(a2, b2, [1, 2], 0.3);
    // On the arc the direction turns by 0.3·Ω with norm 1.3; the chord would give 0.6·sin Ω.
    expect(arc[1]).toBeCloseTo(1.3 * Math.sin(0.3 * Math.asin(1.1e-3)), 8);
    expect(Math.abs((arc[1] as number) - 0.6 * 1.1e-3)).toBeGreaterThan(1e-4);
  });

  it('anti-parallel and near-anti-parallel rows fall back to linear interpolation below the threshold', () => {
    const exact = expectMatchesReference([1, 0], [-2, 0], [1, 2], 0.3);
    expect(Array.from(exact)).toEqual([Math.fround(0.7 - 0.6), 0]);
    const [a1, b1] = rowPair(0.9e-3, 2, true);
    expect(Array.from(expectMatchesReference(a1, b1, [1, 2], 0.3))).toEqual(Array.from(Float32Array.from(lerp(a1, b1, 0.3))));
    const [a2, b2] = rowPair(1.1e-3, 2, true);
    expectMatchesReference(a2, b2, [1, 2], 0.3);
  });

  it('zero and near-zero rows are interpolated linearly, the other rows on the arc', () => {
    const a = [0, 0, 1, 0, 1e-9, 0];
    const b = [4, 8, 0, 1, 0, 5];
    const got = expectMatchesReference(a, b, [3, 2], 0.25);
    expect(Array.from(got.subarray(0, 2))).toEqual([1, 2]);
    expect(got[5]).toBeCloseTo(1.25, 6);
    expect(got[2]).toBeCloseTo(Math.cos(Math.PI / 8), 6);
  });

  it('a 1-D tensor is one row, not a list of scalar rows', () => {
    const got = expectMatchesReference([1, 0], [0, 1], [2], 0.5);
    expect(got[0]).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it('is what the studio\'s SLERP baseline applies to every tensor', () => {
    const a = Float32Array.of(1, 0, 0, 2);
    const b = Float32Array.of(0, 3, 2, 0);
    const { values } = baselineEdit({ method: 'slerp', t: 0.3 })('w', [2, 2], a, b);
    expect(Array.from(values)).toEqual(Array.from(baselineSlerpRows(a, b, [2, 2], 0.3)));
  });
});
