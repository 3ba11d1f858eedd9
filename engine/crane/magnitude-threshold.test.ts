import { describe, expect, it } from 'vitest';
import { magnitudeThreshold, thresholdRank } from './magnitude-threshold.ts';

const run = (values: number[], q?: number) => {
  const r = magnitudeThreshold(Float32Array.from(values), q);
  return { values: Array.from(r.values), threshold: r.threshold, kept: r.kept };
};

describe('T(δ) magnitude threshold', () => {
  it('keeps nothing when every magnitude ties with the median: [1,1,1,1]', () => {
    expect(run([1, 1, 1, 1])).toEqual({ values: [0, 0, 0, 0], threshold: 1, kept: 0 });
  });

  it('even n: k = n/2, the lower median; strictly greater survives, ×2', () => {
    // |δ| sorted: 1 2 3 4 → k = 2 → m = 2; keep 3 and −4.
    expect(run([1, -4, 2, 3])).toEqual({ values: [0, -8, 0, 6], threshold: 2, kept: 2 });
  });

  it('odd n: k = floor(n/2) picks below the middle element', () => {
    // n = 5, k = 2; |δ| sorted: 0.5 1 2 3 5 → m = 1; keep −2, 3, 5 (three of five).
    expect(run([3, -0.5, 1, -2, 5])).toEqual({ values: [6, 0, 0, -4, 10], threshold: 1, kept: 3 });
  });

  it('negative values are ranked by magnitude and keep their sign', () => {
    expect(run([-3, -1, -2, -4])).toEqual({ values: [-6, 0, 0, -8], threshold: 2, kept: 2 });
  });

  it('ties straddling the threshold are all dropped', () => {
    // |δ|: 1 2 2 2 5 6 → k = 3 → m = 2: every 2 is dropped, only 5 and 6 survive.
    expect(run([2, -2, 1, 6, 2, -5])).toEqual({ values: [0, 0, 0, 12, 0, -10], threshold: 2, kept: 2 });
  });

  it('n = 1 uses k = max(1, 0) = 1 and keeps nothing', () => {
    expect(run([7])).toEqual({ values: [0], threshold: 7, kept: 0 });
  });

  it('keep-quantile q: k = floor(n·q), rescale 1/(1−q)', () => {
    // q = 0.75, n = 4 → k = 3 → m = 3; keep only 4, ×4.
    expect(run([1, 2, 3, -4], 0.75)).toEqual({ values: [0, 0, 0, -16], threshold: 3, kept: 1 });
    // q = 0.25, n = 8 → k = 2 → m = 2; rescale 4/3.
    const r = run([1, 2, 3, 4, 5, 6, 7, 8], 0.25);
    expect(r.threshold).toBe(2);
    expect(r.values[2]).toBeCloseTo(4, 6);
    expect(r.kept).toBe(6);
  });

  it('decimal quantiles do not lose a rank to binary rounding', () => {
    expect(thresholdRank(100, 0.29)).toBe(29);
    expect(thresholdRank(10, 0.5)).toBe(5);
    expect(thresholdRank(3, 0.5)).toBe(1);
  });

  it('keeps about half of a large random tensor and preserves roughly the L1 mass', () => {
    let s = 1;
    const delta = Float32Array.from({ length: 10001 }, () => ((s = (s * 16807) % 2147483647) / 2147483647) - 0.5);
    const { values, kept } = magnitudeThreshold(delta);
    expect(kept).toBe(10001 - 5000);
    const l1 = (a: Float32Array) => a.reduce((acc, v) => acc + Math.abs(v), 0);
    expect(l1(values) / l1(delta)).toBeGreaterThan(1.3); // survivors are the larger half, doubled
  });

  it('rejects q outside [0, 1) and NaN deltas', () => {
    expect(() => magnitudeThreshold(new Float32Array(2), 1)).toThrow(RangeError);
    expect(() => magnitudeThreshold(Float32Array.from([1, Number.NaN]))).toThrow(/NaN/);
  });
});
