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
  });
});
