import { describe, expect, it } from 'vitest';
import { hashName, SeededRandom } from './seeded-random.ts';

describe('SeededRandom', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const draw = (seed: number) => Array.from({ length: 8 }, ((rng) => () => rng.next())(new SeededRandom(seed)));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('draws uniforms in [0, 1) and standard normals', () => {
    const rng = new SeededRandom(1);
    let sum = 0;
    for (let i = 0; i < 20000; i++) {
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
    }
    expect(sum / 20000).toBeCloseTo(0.5, 2);
    const normals = rng.normals(20000, 1);
    const mean = normals.reduce((a, v) => a + v, 0) / normals.length;
    const variance = normals.reduce((a, v) => a + (v - mean) ** 2, 0) / normals.length;
    expect(mean).toBeCloseTo(0, 1);
    expect(variance).toBeCloseTo(1, 1);
  });

  it('shuffles to a permutation and picks ints inside the range', () => {
    const rng = new SeededRandom(3);
    expect(rng.shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
    const ints = Array.from({ length: 500 }, () => rng.int(2, 4));
    expect(new Set(ints)).toEqual(new Set([2, 3, 4]));
  });
});

describe('hashName (32-bit FNV-1a)', () => {
  it('matches the published FNV-1a test vectors', () => {
    expect(hashName('')).toBe(0x811c9dc5);
    expect(hashName('a')).toBe(0xe40c292c);
    expect(hashName('foobar')).toBe(0xbf9cf968);
  });

  it('hashes UTF-8 bytes, not UTF-16 code units', () => {
    // "é" is the two bytes C3 A9 in UTF-8; one step of FNV-1a per byte.
    const step = (hash: number, byte: number) => Math.imul(hash ^ byte, 0x01000193) >>> 0;
    expect(hashName('é')).toBe(step(step(0x811c9dc5, 0xc3), 0xa9));
  });
});
