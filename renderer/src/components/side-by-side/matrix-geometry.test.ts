import { describe, expect, it } from 'vitest';
import { cellAt, cellRange, displaySize, tensorExtent } from './matrix-geometry.ts';

const map = (rows: number, cols: number) => ({ rows, cols, values: new Float32Array(rows * cols) });

describe('|Δ| map geometry', () => {
  it('lays a tensor out as rows = first dimension, columns = the rest', () => {
    expect(tensorExtent([1024, 3072])).toEqual({ rows: 1024, cols: 3072 });
    expect(tensorExtent([8, 4, 16])).toEqual({ rows: 8, cols: 64 });
    expect(tensorExtent([4096])).toEqual({ rows: 1, cols: 4096 });
  });

  it('draws a non-square tensor in its own aspect, not the square 64 × 64 map’s', () => {
    expect(displaySize([1024, 3072], map(64, 64), 150)).toEqual({ width: 150, height: 50 });
    expect(displaySize([3072, 1024], map(64, 64), 150)).toEqual({ width: 50, height: 150 });
    expect(displaySize([64, 64], map(64, 64), 150)).toEqual({ width: 150, height: 150 });
    // A bias or an embedding stays visible.
    expect(displaySize([4096], map(1, 64), 150)).toEqual({ width: 150, height: 6 });
    expect(displaySize([151936, 1024], map(64, 64), 150)).toEqual({ width: 6, height: 150 });
  });

  it('names the tensor rows a map cell averages, as the engine bins them', () => {
    // 100 rows into 64 cells: row r goes to floor(r·64/100).
    const owner = (r: number) => Math.floor((r * 64) / 100);
    for (const cell of [0, 1, 31, 63]) {
      const [first, last] = cellRange(cell, 64, 100);
      for (let r = first; r <= last; r++) expect(owner(r)).toBe(cell);
      expect(owner(first - 1)).not.toBe(cell);
      expect(owner(last + 1)).not.toBe(cell);
    }
    expect(cellRange(3, 4, 4)).toEqual([3, 3]);
  });

  it('finds the cell under the pointer, clamped to the map', () => {
    expect(cellAt(map(64, 64), 149.9, 0, 150, 50)).toEqual({ row: 0, col: 63 });
    expect(cellAt(map(64, 64), 75, 25, 150, 50)).toEqual({ row: 32, col: 32 });
    expect(cellAt(map(64, 64), -3, 80, 150, 50)).toEqual({ row: 63, col: 0 });
  });
});
