/**
 * Where each cell of a layers × components heatmap sits on the canvas, and which cell a pointer
 * is over. Layers run along x (layer 0 at the left), component groups along y (first group on top).
 * Pure functions: the component and its tests share them.
 */
export interface HeatmapLayout {
  readonly layers: number;
  readonly groups: number;
  /** The plot area inside the canvas (labels live outside it), in CSS pixels. */
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface CellRef {
  readonly layer: number;
  readonly groupIndex: number;
}

export function cellSize(layout: HeatmapLayout): { width: number; height: number } {
  return { width: layout.width / Math.max(1, layout.layers), height: layout.height / Math.max(1, layout.groups) };
}

export function cellRect(layout: HeatmapLayout, cell: CellRef): { x: number; y: number; width: number; height: number } {
  const size = cellSize(layout);
  return { x: layout.left + cell.layer * size.width, y: layout.top + cell.groupIndex * size.height, ...size };
}

/** The cell under (x, y) in CSS pixels relative to the canvas, or null outside the plot. */
export function cellAt(layout: HeatmapLayout, x: number, y: number): CellRef | null {
  const u = x - layout.left;
  const v = y - layout.top;
  if (u < 0 || v < 0 || u >= layout.width || v >= layout.height) return null;
  const size = cellSize(layout);
  const layer = Math.min(layout.layers - 1, Math.floor(u / size.width));
  const groupIndex = Math.min(layout.groups - 1, Math.floor(v / size.height));
  return { layer, groupIndex };
}

/** The matrices are row-major by layer: rows = layers, cols = groups. */
export function matrixValue(matrix: { cols: number; values: Float32Array }, cell: CellRef): number {
  return matrix.values[cell.layer * matrix.cols + cell.groupIndex] ?? NaN;
}

/** Moves a keyboard cursor by arrow keys, clamped to the grid. */
export function moveCell(cell: CellRef, key: string, layers: number, groups: number): CellRef {
  const clamp = (v: number, n: number) => Math.min(n - 1, Math.max(0, v));
  switch (key) {
    case 'ArrowLeft':
      return { ...cell, layer: clamp(cell.layer - 1, layers) };
    case 'ArrowRight':
      return { ...cell, layer: clamp(cell.layer + 1, layers) };
    case 'ArrowUp':
      return { ...cell, groupIndex: clamp(cell.groupIndex - 1, groups) };
    case 'ArrowDown':
      return { ...cell, groupIndex: clamp(cell.groupIndex + 1, groups) };
    case 'Home':
      return { ...cell, layer: 0 };
    case 'End':
      return { ...cell, layer: layers - 1 };
    default:
      return cell;
  }
}

/** Every n-th layer gets a tick label so labels never overlap (about `minGap` px apart). */
export function labelStep(count: number, extent: number, minGap: number): number {
  const per = extent / Math.max(1, count);
  const raw = Math.max(1, Math.ceil(minGap / per));
  const nice = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128];
  return nice.find((n) => n >= raw) ?? raw;
}
