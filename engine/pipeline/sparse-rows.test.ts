/**
 * The row-sparse form: a Δ given a block of rows at a time (consecutive blocks, or listed rows)
 * comes out as sparseRows makes it from the whole Δ — the same rows, values and width, or the
 * whole array once half the rows or more are nonzero (the switch falling inside a block), and
 * whole for under 2 rows.
 */
import { describe, expect, it } from 'vitest';
import type { TensorDelta } from './delta-store.ts';
import { SparseRowCollector, sparseRows } from './sparse-rows.ts';

const WIDTH = 3;

/** A Δ of `rowCount` rows, nonzero (−0 is zero) on `nonzero` rows only, with a subnormal among the values. */
function delta(rowCount: number, nonzero: readonly number[]): Float32Array {
  const values = new Float32Array(rowCount * WIDTH);
  for (const row of nonzero) values.set([row === 1 ? 0 : -1.5 - row, 2 ** -140, row === 1 ? 7 : 0], row * WIDTH);
  return values;
}

function plain(d: TensorDelta) {
  return { direction: d.direction, values: Array.from(d.values), rows: d.rows === undefined ? undefined : Array.from(d.rows), width: d.width };
}

/** The collector fed in blocks of `block` consecutive rows. */
function inBlocks(values: Float32Array, rowCount: number, block: number): TensorDelta {
  const rows = new SparseRowCollector(4, rowCount, WIDTH);
  for (let first = 0; first < rowCount; first += block) {
    const count = Math.min(block, rowCount - first);
    rows.add({ first, count }, values.slice(first * WIDTH, (first + count) * WIDTH));
  }
  return rows.result();
}

describe('sparse rows', () => {
  it('keeps fewer than half the rows nonzero as those rows, and the whole Δ otherwise, however it arrives', () => {
    for (const [rowCount, nonzero] of [[10, [1, 7]], [10, [0, 2, 4, 6, 8]], [10, [9]], [10, []], [9, [0, 1, 2, 3]], [1, [0]], [10, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]] as const) {
      const values = delta(rowCount, nonzero);
      const expected = plain(sparseRows(4, values, [rowCount, WIDTH]));
      expect(expected.rows === undefined).toBe(rowCount < 2 || nonzero.length * 2 >= rowCount);
      for (const block of [1, 3, 4, rowCount]) expect(plain(inBlocks(values, rowCount, block))).toEqual(expected);
    }
  });

  it('takes listed rows (the think rows alone), every other row being zero', () => {
    const values = delta(20, [3, 11]);
    const rows = new SparseRowCollector(2, 20, WIDTH);
    rows.add([3, 11], Float32Array.of(...values.subarray(3 * WIDTH, 4 * WIDTH), ...values.subarray(11 * WIDTH, 12 * WIDTH)));
    expect(plain(rows.result())).toEqual(plain(sparseRows(2, values, [20, WIDTH])));
    expect(() => rows.add([5], new Float32Array(2))).toThrow(/2 values are not 1 rows of 3/);
  });
});
