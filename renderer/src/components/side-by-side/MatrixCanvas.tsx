/**
 * A downsampled |Δ| map on a canvas in the tensor's own aspect, coloured on a scale the caller
 * shares between maps (before/after compare directly). Hovering reads out the cell: the tensor
 * rows and columns it averages and its mean |Δ|.
 */
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { colorAt, type ColorScale } from '../../lib/color-scale.ts';
import { formatNumber } from '../../lib/format.ts';
import type { Matrix } from '../../protocol.ts';
import { cellAt, cellRange, displaySize, tensorExtent } from './matrix-geometry.ts';

export interface MatrixCanvasProps {
  matrix: Matrix;
  /** The tensor's shape: the map's aspect and the indices a cell names. */
  shape: readonly number[];
  label: string;
  scale: ColorScale;
  size?: number;
}

export function MatrixCanvas({ matrix, shape, label, scale, size = 150 }: MatrixCanvasProps) {
  const ref = useRef<HTMLCanvasElement | null>(null);
  const [hover, setHover] = useState<{ row: number; col: number } | null>(null);
  useEffect(() => {
    const canvas = ref.current;
    const ctx = canvas?.getContext('2d') ?? null;
    if (canvas === null || ctx === null || matrix.rows === 0 || matrix.cols === 0) return;
    canvas.width = matrix.cols;
    canvas.height = matrix.rows;
    const image = ctx.createImageData(matrix.cols, matrix.rows);
    for (let i = 0; i < matrix.values.length; i++) {
      const [r, g, b] = colorAt(scale, matrix.values[i] ?? 0);
      image.data.set([r, g, b, 255], i * 4);
    }
    ctx.putImageData(image, 0, 0);
  }, [matrix, scale]);
  const box = displaySize(shape, matrix, size);
  const onMove = (e: MouseEvent<HTMLCanvasElement>) => {
    // Inside the border: the canvas' content box is box.width × box.height.
    const canvas = e.currentTarget;
    const rect = canvas.getBoundingClientRect();
    setHover(cellAt(matrix, e.clientX - rect.left - canvas.clientLeft, e.clientY - rect.top - canvas.clientTop, box.width, box.height));
  };
  return (
    <figure className="matrix">
      <canvas ref={ref} className="matrix-canvas" role="img" aria-label={label} style={box} onMouseMove={onMove} onMouseLeave={() => setHover(null)} />
      <figcaption className="small muted matrix-readout" data-testid="matrix-readout">
        {hover === null ? `${shape.join(' × ')} · hover for values` : describeCell(matrix, shape, hover)}
      </figcaption>
    </figure>
  );
}

/** "rows 16–31 · cols 0–47: |Δ| 1.2e-4 (mean)". */
function describeCell(matrix: Matrix, shape: readonly number[], { row, col }: { row: number; col: number }): string {
  const extent = tensorExtent(shape);
  const span = (cell: number, cells: number, count: number, what: string) => {
    const [a, b] = cellRange(cell, cells, count);
    return a === b ? `${what} ${a}` : `${what}s ${a}–${b}`;
  };
  const value = matrix.values[row * matrix.cols + col] ?? NaN;
  return `${span(row, matrix.rows, extent.rows, 'row')} · ${span(col, matrix.cols, extent.cols, 'col')}: |Δ| ${formatNumber(value)} (mean)`;
}
