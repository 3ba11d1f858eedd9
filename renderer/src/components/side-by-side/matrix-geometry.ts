/**
 * Where a downsampled |Δ| map's cells lie in its tensor. The engine averages |x| over blocks of
 * rows × columns (rows = the first dimension, columns = the rest flattened; engine/handlers/
 * tensor-stats.ts absMap), so a map is at most mapSize × mapSize whatever the tensor's shape:
 * the canvas takes the tensor's aspect, and a hovered cell names the tensor rows and columns it
 * averages.
 */
import type { Matrix } from '../../protocol.ts';

/** The tensor's rows × columns as the map lays them out. */
export function tensorExtent(shape: readonly number[]): { rows: number; cols: number } {
  if (shape.length <= 1) return { rows: 1, cols: shape[0] ?? 0 };
  const rows = shape[0] ?? 0;
  return { rows, cols: shape.slice(1).reduce((a, b) => a * b, 1) };
}

/** Least on-screen thickness, so a 1 × 4096 bias or a 151936 × 1024 embedding stays visible. */
const MIN_SIDE = 6;

/** CSS size of a map whose longer side is `size`, in the tensor's own aspect (the map's when no shape). */
export function displaySize(shape: readonly number[], matrix: Matrix, size: number): { width: number; height: number } {
  const extent = tensorExtent(shape);
  const [rows, cols] = extent.rows > 0 && extent.cols > 0 ? [extent.rows, extent.cols] : [matrix.rows, matrix.cols];
  if (rows <= 0 || cols <= 0) return { width: size, height: size };
  return rows >= cols
    ? { width: Math.max(MIN_SIDE, Math.round((size * cols) / rows)), height: size }
    : { width: size, height: Math.max(MIN_SIDE, Math.round((size * rows) / cols)) };
}

/** The tensor indices [first, last] that map cell `cell` of `cells` averages over `count` entries (absMap's floor(i·cells/count)). */
export function cellRange(cell: number, cells: number, count: number): [number, number] {
  const first = Math.ceil((cell * count) / cells);
  const last = Math.ceil(((cell + 1) * count) / cells) - 1;
  return [first, Math.max(first, last)];
}

/** The map cell under a point `(x, y)` of a `width × height` box, clamped to the map. */
export function cellAt(matrix: Matrix, x: number, y: number, width: number, height: number): { row: number; col: number } {
  const clamp = (v: number, n: number) => Math.min(n - 1, Math.max(0, Math.floor(v)));
  return { row: clamp((y / height) * matrix.rows, matrix.rows), col: clamp((x / width) * matrix.cols, matrix.cols) };
}
