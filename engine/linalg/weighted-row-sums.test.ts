import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { WeightedRowSums, weightedRowSums } from './weighted-row-sums.ts';

/** out[r][c] = float32 sum over j in order of float32 products: the kernel's additions, one by one. */
function sequentialFloat32(weights: Float32Array, count: number, matrix: Float32Array, size: number, width: number): Float32Array {
  const out = new Float32Array(count * width);
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < width; c++) {
      let sum = 0;
      for (let j = 0; j < size; j++) sum = Math.fround(sum + Math.fround((weights[r * size + j] as number) * (matrix[j * width + c] as number)));
      out[r * width + c] = sum;
    }
  }
  return out;
}

function randomArray(rng: SeededRandom, length: number, scale: number): Float32Array {
  return Float32Array.from({ length }, () => (rng.next() - 0.5) * scale);
}

describe('weightedRowSums', () => {
  it.each([
    [1, 1, 8],
    [5, 300, 12],
    [63, 600, 64],
    [4, 257, 3],
  ])('%i rows of weights over %i × %i: the float32 sums in order, bit for bit', (count, size, width) => {
    const rng = new SeededRandom(count * 1000 + size + width);
    const weights = randomArray(rng, count * size, 2);
    const matrix = randomArray(rng, size * width, 0.1);
    expect(weightedRowSums(weights, count, matrix, size, width)).toEqual(sequentialFloat32(weights, count, matrix, size, width));
  });

  it('gives the same after a larger call grew its memory (no state carried between calls)', () => {
    const rng = new SeededRandom(7);
    const [weights, matrix] = [randomArray(rng, 3 * 20, 1), randomArray(rng, 20 * 16, 1)];
    const first = weightedRowSums(weights, 3, matrix, 20, 16);
    weightedRowSums(randomArray(rng, 70 * 900, 1), 70, randomArray(rng, 900 * 40, 1), 900, 40);
    expect(weightedRowSums(weights, 3, matrix, 20, 16)).toEqual(first);
  });

  it.each([[[300]], [[1, 299]], [[256, 44]], [[7, 250, 43]]])('over 300 × 12 given in blocks of %j rows (a kernel call between two): the whole call\'s sums, bit for bit', (blocks) => {
    const rng = new SeededRandom(11);
    const [weights, matrix] = [randomArray(rng, 9 * 300, 2), randomArray(rng, 300 * 12, 0.1)];
    const sums = new WeightedRowSums(weights, 9, 300, 12);
    let first = 0;
    for (const n of blocks) {
      sums.add(first, matrix.slice(first * 12, (first + n) * 12));
      weightedRowSums(randomArray(rng, 5 * 40, 1), 5, randomArray(rng, 40 * 8, 1), 40, 8);
      first += n;
    }
    expect(sums.result()).toEqual(weightedRowSums(weights, 9, matrix, 300, 12));
    expect(sums.result()).toEqual(sequentialFloat32(weights, 9, matrix, 300, 12));
  });

  it('refuses blocks out of order and a result before the last row', () => {
    const sums = new WeightedRowSums(new Float32Array(2 * 10), 2, 10, 4);
    expect(() => sums.add(1, new Float32Array(4))).toThrow('do not follow row 0 of 10');
    sums.add(0, new Float32Array(3 * 4));
    expect(() => sums.result()).toThrow('over 3 of 10 matrix rows');
  });

  it('refuses sizes that do not match the arrays', () => {
    expect(() => weightedRowSums(new Float32Array(6), 2, new Float32Array(12), 3, 4)).not.toThrow();
    expect(() => weightedRowSums(new Float32Array(5), 2, new Float32Array(12), 3, 4)).toThrow('5 weights are not 2 × 3');
    expect(() => weightedRowSums(new Float32Array(6), 2, new Float32Array(11), 3, 4)).toThrow('a matrix of 11 values is not 3 × 4');
    expect(() => weightedRowSums(new Float32Array(0), 0, new Float32Array(0), 3, 4)).toThrow(/sizes must be positive integers/);
  });
});
