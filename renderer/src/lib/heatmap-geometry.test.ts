import { describe, expect, it } from 'vitest';
import { cellAt, cellRect, labelStep, matrixValue, moveCell, type HeatmapLayout } from './heatmap-geometry.ts';

const layout: HeatmapLayout = { layers: 48, groups: 4, left: 100, top: 10, width: 480, height: 80 };

describe('heatmap geometry', () => {
  it('places cells with layers along x and groups along y', () => {
    expect(cellRect(layout, { layer: 0, groupIndex: 0 })).toEqual({ x: 100, y: 10, width: 10, height: 20 });
    expect(cellRect(layout, { layer: 47, groupIndex: 3 })).toEqual({ x: 570, y: 70, width: 10, height: 20 });
  });

  it('finds the cell under a point and nothing outside the plot', () => {
    expect(cellAt(layout, 100, 10)).toEqual({ layer: 0, groupIndex: 0 });
    expect(cellAt(layout, 135.5, 49.9)).toEqual({ layer: 3, groupIndex: 1 });
    expect(cellAt(layout, 579.9, 89.9)).toEqual({ layer: 47, groupIndex: 3 });
    expect(cellAt(layout, 99, 20)).toBeNull();
    expect(cellAt(layout, 580, 20)).toBeNull();
    expect(cellAt(layout, 200, 90)).toBeNull();
  });

  it('round-trips every cell centre', () => {
    for (let layer = 0; layer < 48; layer++)
      for (let g = 0; g < 4; g++) {
        const r = cellRect(layout, { layer, groupIndex: g });
        expect(cellAt(layout, r.x + r.width / 2, r.y + r.height / 2)).toEqual({ layer, groupIndex: g });
      }
  });

  it('reads the row-major (layer, group) value for hover', () => {
    const matrix = { cols: 3, values: new Float32Array([0, 1, 2, 10, 11, 12]) };
    expect(matrixValue(matrix, { layer: 1, groupIndex: 2 })).toBe(12);
    expect(matrixValue(matrix, { layer: 5, groupIndex: 0 })).toBeNaN();
  });

  it('moves a keyboard cursor within bounds', () => {
    expect(moveCell({ layer: 0, groupIndex: 0 }, 'ArrowLeft', 48, 4)).toEqual({ layer: 0, groupIndex: 0 });
    expect(moveCell({ layer: 0, groupIndex: 0 }, 'ArrowDown', 48, 4)).toEqual({ layer: 0, groupIndex: 1 });
    expect(moveCell({ layer: 3, groupIndex: 1 }, 'End', 48, 4)).toEqual({ layer: 47, groupIndex: 1 });
  });

  it('thins labels so they keep a minimum gap', () => {
    expect(labelStep(48, 480, 28)).toBe(4);
    expect(labelStep(4, 80, 13)).toBe(1);
    expect(labelStep(388, 1552, 13)).toBe(4);
  });
});
