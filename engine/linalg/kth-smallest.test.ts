import { describe, expect, it } from 'vitest';
import { kthSmallestAbs, kthSmallestInPlace } from './kth-smallest.ts';

function sortedCopy(values: Float64Array): Float64Array {
  return Float64Array.from(values).sort();
}

describe('kthSmallestInPlace', () => {
  it('matches a full sort for every k on random data with many ties', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const n of [1, 2, 3, 10, 101, 1000]) {
      const values = Float64Array.from({ length: n }, () => Math.round(next() * 8) - 4);
      const sorted = sortedCopy(values);
      for (let k = 1; k <= n; k += Math.max(1, Math.floor(n / 17))) {
        expect(kthSmallestInPlace(Float64Array.from(values), k)).toBe(sorted[k - 1]);
      }
    }
  });

  it('handles all-equal input and sorted/reversed input', () => {
    expect(kthSmallestInPlace(new Float64Array(500).fill(3), 250)).toBe(3);
    const up = Float64Array.from({ length: 1000 }, (_, i) => i);
    expect(kthSmallestInPlace(Float64Array.from(up), 1)).toBe(0);
    expect(kthSmallestInPlace(Float64Array.from(up).reverse(), 1000)).toBe(999);
  });

  it('rejects k outside 1..n', () => {
    expect(() => kthSmallestInPlace(new Float64Array(3), 0)).toThrow(RangeError);
    expect(() => kthSmallestInPlace(new Float64Array(3), 4)).toThrow(RangeError);
  });
});

describe('kthSmallestAbs', () => {
  it('orders by magnitude and leaves the input untouched', () => {
    const values = Float32Array.from([-5, 1, -2, 4, 3]);
    expect(kthSmallestAbs(values, 2)).toBe(2);
    expect(Array.from(values)).toEqual([-5, 1, -2, 4, 3]);
  });

  it('refuses NaN', () => {
    expect(() => kthSmallestAbs(Float32Array.from([1, Number.NaN]), 1)).toThrow(/NaN at index 1/);
    expect(() => kthSmallestAbs(Float64Array.from([1, Number.NaN]), 1)).toThrow(/NaN at index 1/);
  });

  it('float32 (counting passes over the bit patterns) agrees with float64 (quickselect) and a sort, every k', () => {
    let s = 5;
    const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
    // BF16-like ties, ±0, subnormals, huge values and ±∞, in a subarray at an offset.
    const pool = [0, -0, 1e-40, -1e-40, 3.4e38, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, -0.5];
    const backing = Float32Array.from({ length: 400 }, (_, i) => (i % 3 === 0 ? (pool[i % pool.length] as number) : Math.round(next() * 64) / 16));
    const values = backing.subarray(7, 390);
    const sorted = Array.from(values, Math.abs).sort((a, b) => a - b);
    for (let k = 1; k <= values.length; k++) {
      const got = kthSmallestAbs(values, k);
      expect(got).toBe(sorted[k - 1]);
      expect(kthSmallestAbs(Float64Array.from(values), k)).toBe(got);
    }
    expect(() => kthSmallestAbs(values, values.length + 1)).toThrow(RangeError);
  });
});
