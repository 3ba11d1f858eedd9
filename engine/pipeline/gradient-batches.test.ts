/**
 * The gradients stage's split into batches and their dispatch order: consecutive sequences under
 * both caps, a cap of 1/8 of all tokens, and longest first with each set's batches in order.
 */
import { describe, expect, it } from 'vitest';
import type { LossSequence } from '../model/layer-grads.ts';
import { BALANCE_PARTS, batchTokenCap, batchTokens, longestFirst, splitIntoBatches } from './gradient-batches.ts';

const sequence = (length: number, tag = 0): LossSequence & { tag: number } => ({ ids: Array.from({ length }, (_, t) => t), tag });
const lengths = (batches: readonly (readonly LossSequence[])[]): number[][] => batches.map((batch) => batch.map((s) => s.ids.length));

describe('splitIntoBatches', () => {
  it('keeps the sequences in order, starting a batch when the next would pass either cap', () => {
    const set = [10, 20, 30, 5, 5, 5, 5, 40].map((n) => sequence(n));
    expect(lengths(splitIntoBatches(set, 3, 35))).toEqual([[10, 20], [30, 5], [5, 5, 5], [40]]);
    expect(splitIntoBatches(set, 3, 35).flat()).toEqual(set);
  });

  it('cuts by the sequence count alone when the token cap is above every batch', () => {
    expect(lengths(splitIntoBatches([1, 2, 3, 4, 5].map((n) => sequence(n)), 2, 1000))).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('gives a sequence longer than the token cap a batch of its own', () => {
    expect(lengths(splitIntoBatches([50, 3, 60].map((n) => sequence(n)), 8, 10))).toEqual([[50], [3], [60]]);
  });

  it('makes no batch of an empty set', () => {
    expect(splitIntoBatches([], 8, 10)).toEqual([]);
  });
});

describe('batchTokenCap', () => {
  it('is 1/BALANCE_PARTS of both sets\' tokens, rounded up', () => {
    // the 28-layer pair's calibration: D_R 63 + 62 tokens, D_A 233 + 235
    const sets = [[sequence(63), sequence(62)], [sequence(233), sequence(235)]];
    expect(BALANCE_PARTS).toBe(8);
    expect(batchTokens(sets.flat())).toBe(593);
    expect(batchTokenCap(sets)).toBe(75);
    const batches = sets.map((set) => splitIntoBatches(set, 8, batchTokenCap(sets)));
    expect(batches.map(lengths)).toEqual([[[63], [62]], [[233], [235]]]);
  });
});

describe('longestFirst', () => {
  it('takes the largest next item of any list, each list in its own order', () => {
    const merged = longestFirst([[63, 62], [233, 235]], (n) => n);
    expect(merged).toEqual([233, 235, 63, 62]);
  });

  it('never takes an item before an earlier one of its list, however large', () => {
    expect(longestFirst([[1, 100], [50, 40]], (n) => n)).toEqual([50, 40, 1, 100]);
  });

  it('prefers the earlier list on a tie and keeps every item once', () => {
    const a = [sequence(5, 1), sequence(5, 2)];
    const b = [sequence(5, 3)];
    expect(longestFirst([a, b], (s) => s.ids.length).map((s) => s.tag)).toEqual([1, 2, 3]);
    expect(longestFirst([[], [7], []], (n) => n)).toEqual([7]);
  });
});
