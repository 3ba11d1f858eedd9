import { describe, expect, it } from 'vitest';
import { heatmapCsv } from './heatmap-export.ts';

describe('heatmap CSV', () => {
  it('has a row per layer and a column per block, at full precision, blanks for missing values', () => {
    const matrix = { rows: 2, cols: 2, values: Float32Array.from([0.5, 1e-7, Number.NaN, 2]) };
    expect(heatmapCsv(matrix, ['attention', 'ffn,up'])).toBe(`layer,attention,"ffn,up"\n0,0.5,${Math.fround(1e-7)}\n1,,2\n`);
  });
});
