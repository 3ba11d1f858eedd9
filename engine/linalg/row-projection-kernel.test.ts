import { describe, expect, it } from 'vitest';
import { ProjectionBasis } from './row-projection-kernel.ts';
import { projectFourRows, transposedBasis, type RowView } from './row-projection.ts';
import { lcg } from './testing/matrices.ts';

type FourRows = [RowView, RowView, RowView, RowView];

/** Every value the same float64 as the scalar reference's (Object.is: −0 ≠ +0, NaN = NaN). */
function expectIdentical(actual: Float64Array, expected: Float64Array): void {
  expect(actual.length).toBe(expected.length);
  const differing = Array.from(actual).flatMap((value, at) => (Object.is(value, expected[at]) ? [] : [`${at}: ${value} ≠ ${expected[at]}`]));
  expect(differing).toEqual([]);
}

function compare(rows: FourRows, directions: Float64Array, count: number): Float64Array {
  const expected = new Float64Array(4 * count);
  projectFourRows(rows, directions, count, expected);
  const actual = new Float64Array(4 * count).fill(Number.NaN);
  new ProjectionBasis(directions, count).projectFourRows(rows, actual);
  expectIdentical(actual, expected);
  return actual;
}

describe('ProjectionBasis.projectFourRows (WebAssembly SIMD)', () => {
  it('equals the scalar loop bit for bit on float32 and float64 rows, even and odd ranks, dims not a multiple of 4', () => {
    const next = lcg(5);
    for (const dim of [1, 3, 7, 13, 130]) {
      for (const rank of [1, 2, 3, 5, 6, 8, 9]) {
        // Magnitudes over many binades so roundings differ with the summation order.
        const basis = Float32Array.from({ length: dim * rank }, () => next() * 2 ** Math.floor(next() * 20));
        const directions = transposedBasis(basis, dim, rank);
        const f32 = Float32Array.from({ length: 6 * dim }, () => next() * 2 ** Math.floor(next() * 30 - 15));
        const f64 = Float64Array.from({ length: 6 * dim }, () => next() * 1e3 + next());
        compare([0, 5, 2, 3].map((r) => ({ values: f32, offset: r * dim })) as FourRows, directions, rank);
        compare([1, 4, 0, 2].map((r) => ({ values: f64, offset: r * dim })) as FourRows, directions, rank);
      }
    }
  });

  it('mixes float32 and float64 rows in one call and reuses a basis across calls', () => {
    const next = lcg(11);
    const [dim, rank] = [37, 7];
    const directions = Float64Array.from({ length: dim * rank }, next);
    const projection = new ProjectionBasis(directions, rank);
    for (let call = 0; call < 3; call++) {
      const a = Float32Array.from({ length: dim }, next);
      const b = Float64Array.from({ length: 2 * dim }, next);
      const rows: FourRows = [{ values: a, offset: 0 }, { values: b, offset: dim }, { values: b, offset: 0 }, { values: a, offset: 0 }];
      const expected = new Float64Array(4 * rank);
      projectFourRows(rows, directions, rank, expected);
      const actual = new Float64Array(4 * rank);
      projection.projectFourRows(rows, actual);
      expectIdentical(actual, expected);
    }
  });

  it('keeps two bases apart when calls alternate between them (each its own instance and memory)', () => {
    const next = lcg(17);
    const [dim, rank] = [10, 6];
    const directions = Float64Array.from({ length: dim * rank }, next);
    const transposed = Float64Array.from({ length: dim * rank }, (_, at) => directions[(at % rank) * dim + Math.floor(at / rank)] as number);
    const [forward, back] = [new ProjectionBasis(directions, rank), new ProjectionBasis(transposed, dim)];
    const rows = Float64Array.from({ length: 4 * dim }, next);
    const coefficients = new Float64Array(4 * rank);
    const four = (values: Float64Array, length: number) => [0, 1, 2, 3].map((k) => ({ values, offset: k * length })) as FourRows;
    for (let call = 0; call < 2; call++) {
      forward.projectFourRows(four(rows, dim), coefficients);
      const expected = new Float64Array(4 * rank);
      projectFourRows(four(rows, dim), directions, rank, expected);
      expectIdentical(coefficients, expected);
      const restored = new Float64Array(4 * dim);
      back.projectFourRows(four(coefficients, rank), restored);
      const wanted = new Float64Array(4 * dim);
      projectFourRows(four(coefficients, rank), transposed, dim, wanted);
      expectIdentical(restored, wanted);
    }
  });

  it('keeps ±0, subnormals, infinities and NaN as the scalar loop does', () => {
    const tiny = 2 ** -1074;
    const edge = [0, -0, tiny, -tiny, 2 ** -1022, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-310, 3];
    const dim = edge.length;
    const directions = Float64Array.from([...edge, ...edge.map((v) => -v), ...edge.slice().reverse()]);
    const rows: FourRows = [
      { values: Float64Array.from(edge), offset: 0 },
      { values: Float64Array.from({ length: dim }, () => -0), offset: 0 },
      { values: Float32Array.from([1e-45, -1e-45, 0, -0, 1.5e-39, -1.5e-39, 3e38, -3e38, 1]), offset: 0 },
      { values: Float64Array.from([Infinity, 0, 1, 1, 1, 1, 1, 1, 1]), offset: 0 },
    ];
    const out = compare(rows, directions, 3);
    // The all −0 row sums to +0 (the sum starts at +0), and ∞·0 makes NaN, as in the scalar loop.
    expect(Object.is(out[3], 0)).toBe(true);
    expect(Number.isNaN(out[9])).toBe(true);
  });

  it('rejects a basis that is not whole directions, and a row that overruns its array', () => {
    expect(() => new ProjectionBasis(new Float64Array(10), 3)).toThrow(/10 values is not 3/);
    expect(() => new ProjectionBasis(new Float64Array(0), 1)).toThrow(RangeError);
    const projection = new ProjectionBasis(new Float64Array(8), 2);
    const row = { values: new Float32Array(4), offset: 1 };
    expect(() => projection.projectFourRows([row, row, row, row], new Float64Array(8))).toThrow(/row 0 \(4 values from 1\) overruns its 4-value array/);
  });
});
