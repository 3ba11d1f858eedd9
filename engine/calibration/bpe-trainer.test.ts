import { describe, expect, it } from 'vitest';
import { trainBpe } from './bpe-trainer.ts';

describe('trainBpe', () => {
  it('merges the most frequent pair first and stops below minFrequency', () => {
    // Pair counts: ab = 2·2 + 1 = 5, ba = 2, bc = 1 → merge (a,b); then (ab,ab) = 2, (b,c) = 1 → stop.
    const words = new Map([
      ['abab', 2],
      ['ab', 1],
      ['bc', 1],
    ]);
    expect(trainBpe(words, { maxMerges: 10 }).merges).toEqual([
      ['a', 'b'],
      ['ab', 'ab'],
    ]);
  });

  it('breaks ties by string order, independent of insertion order', () => {
    const a = trainBpe(new Map([['xy', 2], ['pq', 2]]), { maxMerges: 1 }).merges;
    const b = trainBpe(new Map([['pq', 2], ['xy', 2]]), { maxMerges: 1 }).merges;
    expect(a).toEqual([['p', 'q']]);
    expect(b).toEqual(a);
  });

  it('merges runs left to right without overlap', () => {
    // "aaa": (a,a) counted twice → merged to [aa, a]; then (aa,a) = 1 < 2 stops.
    expect(trainBpe(new Map([['aaa', 1]]), { maxMerges: 5 }).merges).toEqual([['a', 'a']]);
  });
});
