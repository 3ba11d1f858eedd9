import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { applyConstraints, projectTaskSlice, type RankOneConstraints } from './rain-projection.ts';
import { referenceProjectSlice } from './testing/reference-rain.ts';

function randomConstraints(random: SeededRandom, m: number, dIn: number, dOut: number): RankOneConstraints {
  return {
    count: m,
    inputs: Float64Array.from({ length: m * dIn }, () => random.normal()),
    partners: Float64Array.from({ length: m * dOut }, () => random.normal()),
    scales: Float64Array.from({ length: m }, () => 0.5 + random.next()),
  };
}

function rowsOf(values: Float64Array, count: number, width: number): number[][] {
  return Array.from({ length: count }, (_, i) => Array.from(values.subarray(i * width, (i + 1) * width)));
}

describe('RAIN null-space projection of a task slice', () => {
  it.each([
    { m: 1, dIn: 3, dOut: 2, ridge: 1e-4 },
    { m: 4, dIn: 5, dOut: 3, ridge: 1e-4 },
    { m: 7, dIn: 4, dOut: 4, ridge: 0.5 },
    // more constraints than slice entries: G is singular, only the ridge keeps it invertible
    { m: 9, dIn: 2, dOut: 3, ridge: 1e-3 },
  ])('equals the explicit-matrix reference for m=$m, $dIn×$dOut, ridge $ridge', ({ m, dIn, dOut, ridge }) => {
    const random = new SeededRandom(m * 31 + dIn);
    const constraints = randomConstraints(random, m, dIn, dOut);
    const delta = Float64Array.from({ length: dIn * dOut }, () => random.normal());
    const ours = projectTaskSlice(delta, dIn, dOut, constraints, ridge);
    const expected = referenceProjectSlice(Array.from(delta), dIn, dOut, rowsOf(constraints.inputs, m, dIn), rowsOf(constraints.partners, m, dOut), Array.from(constraints.scales), ridge);
    ours.forEach((v, k) => expect(v).toBeCloseTo(expected[k] ?? NaN, 9));
  });

  it('drives every constraint to ~0 when the ridge is small and the constraints are independent', () => {
    const random = new SeededRandom(7);
    const constraints = randomConstraints(random, 3, 6, 4);
    const delta = Float64Array.from({ length: 24 }, () => random.normal());
    const before = applyConstraints(delta, 6, 4, constraints);
    const after = applyConstraints(projectTaskSlice(delta, 6, 4, constraints, 1e-10), 6, 4, constraints);
    expect(Math.max(...before.map(Math.abs))).toBeGreaterThan(0.1);
    for (const v of after) expect(Math.abs(v)).toBeLessThan(1e-8);
  });

  it('leaves a slice already in the null space unchanged', () => {
    // x = e0, r = e0: the constraint reads Δ[0][0] only, which is zero here.
    const constraints: RankOneConstraints = { count: 1, inputs: Float64Array.of(1, 0), partners: Float64Array.of(1, 0), scales: Float64Array.of(2) };
    const delta = Float64Array.of(0, 3, -1, 4);
    expect(Array.from(projectTaskSlice(delta, 2, 2, constraints, 1e-4))).toEqual([0, 3, -1, 4]);
  });

  it('returns a copy of the slice when there are no constraints, as the reference does', () => {
    const delta = Float64Array.of(1, 2, 3, 4);
    const out = projectTaskSlice(delta, 2, 2, { count: 0, inputs: new Float64Array(0), partners: new Float64Array(0), scales: new Float64Array(0) }, 1e-4);
    expect(Array.from(out)).toEqual([1, 2, 3, 4]);
    expect(out).not.toBe(delta);
  });

  it('refuses mismatched sizes and a non-positive ridge', () => {
    const constraints = randomConstraints(new SeededRandom(1), 2, 3, 2);
    expect(() => projectTaskSlice(new Float64Array(5), 3, 2, constraints, 1e-4)).toThrow(/task slice has 5 entries, expected 3×2/);
    expect(() => projectTaskSlice(new Float64Array(8), 4, 2, constraints, 1e-4)).toThrow(/constraint inputs have 6 entries, expected 2×4/);
    expect(() => projectTaskSlice(new Float64Array(6), 3, 2, constraints, 0)).toThrow(/ridge must be > 0/);
  });
});
