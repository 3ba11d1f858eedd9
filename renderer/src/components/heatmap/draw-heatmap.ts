/**
 * Paints a heatmap onto a canvas without React: one pixel per cell into an offscreen bitmap,
 * scaled up without smoothing, then axis labels and the selection/hover outlines. A 48 × 388
 * fine-grouped map is one putImageData and one drawImage.
 */
import { colorAt, type ColorScale } from '../../lib/color-scale.ts';
import { formatNumber } from '../../lib/format.ts';
import { cellRect, labelStep, type CellRef, type HeatmapLayout } from '../../lib/heatmap-geometry.ts';
import type { Matrix } from '../../protocol.ts';
import type { CellMark } from './heatmap-marks.ts';

export interface HeatmapPaint {
  readonly layout: HeatmapLayout;
  readonly matrix: Matrix;
  readonly groups: readonly string[];
  readonly scale: ColorScale;
  readonly selected: CellRef | null;
  readonly hovered: CellRef | null;
  readonly marks: readonly CellMark[];
  /** Axis titles: along x (layers) and y (blocks). */
  readonly axes: { readonly x: string; readonly y: string };
  /** Write each cell's value in it (where a cell is wide and tall enough to hold the text). */
  readonly values: boolean;
  readonly textColor: string;
  readonly accentColor: string;
}

/** The cells as RGBA, one pixel per cell: x = layer, y = group. */
export function cellPixels(matrix: Matrix, scale: ColorScale): Uint8ClampedArray<ArrayBuffer> {
  const { rows: layers, cols: groups, values } = matrix;
  const pixels = new Uint8ClampedArray(layers * groups * 4);
  for (let l = 0; l < layers; l++) {
    for (let g = 0; g < groups; g++) {
      const [r, gr, b] = colorAt(scale, values[l * groups + g] ?? NaN);
      const p = (g * layers + l) * 4;
      pixels[p] = r;
      pixels[p + 1] = gr;
      pixels[p + 2] = b;
      pixels[p + 3] = 255;
    }
  }
  return pixels;
}

let offscreen: HTMLCanvasElement | null = null;

export function drawHeatmap(canvas: HTMLCanvasElement, paint: HeatmapPaint): boolean {
  const ctx = canvas.getContext('2d');
  if (ctx === null) return false;
  const { layout, matrix, groups } = paint;
  const dpr = window.devicePixelRatio || 1;
  const cssWidth = layout.left + layout.width + 8;
  const cssHeight = layout.top + layout.height + 36;
  if (canvas.width !== Math.round(cssWidth * dpr) || canvas.height !== Math.round(cssHeight * dpr)) {
    canvas.width = Math.round(cssWidth * dpr);
    canvas.height = Math.round(cssHeight * dpr);
    canvas.style.width = `${cssWidth}px`;
    canvas.style.height = `${cssHeight}px`;
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssWidth, cssHeight);

  offscreen ??= document.createElement('canvas');
  offscreen.width = matrix.rows;
  offscreen.height = matrix.cols;
  const octx = offscreen.getContext('2d');
  if (octx === null || matrix.rows === 0 || matrix.cols === 0) return false;
  octx.putImageData(new ImageData(cellPixels(matrix, paint.scale), matrix.rows, matrix.cols), 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(offscreen, layout.left, layout.top, layout.width, layout.height);

  ctx.fillStyle = paint.textColor;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  const groupStep = labelStep(groups.length, layout.height, 13);
  for (let g = 0; g < groups.length; g += groupStep) {
    const r = cellRect(layout, { layer: 0, groupIndex: g });
    ctx.fillText(groups[g] ?? '', layout.left - 6, r.y + r.height / 2);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const layerStep = labelStep(layout.layers, layout.width, 28);
  for (let l = 0; l < layout.layers; l += layerStep) {
    const r = cellRect(layout, { layer: l, groupIndex: 0 });
    ctx.fillText(String(l), r.x + r.width / 2, layout.top + layout.height + 5);
  }
  ctx.fillText(paint.axes.x, layout.left + layout.width / 2, layout.top + layout.height + 20);
  ctx.save();
  ctx.translate(8, layout.top + layout.height / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(paint.axes.y, 0, -4);
  ctx.restore();

  if (paint.values) drawCellValues(ctx, layout, matrix, paint.scale);
  for (const mark of paint.marks) drawMark(ctx, layout, mark, paint.textColor);

  outline(ctx, layout, paint.hovered, paint.textColor, 1);
  outline(ctx, layout, paint.selected, paint.accentColor, 2);
  return true;
}

/** Smallest cell, in CSS pixels, that holds a 3-significant-digit value legibly. */
const VALUE_CELL = { width: 30, height: 12 } as const;

/** Whether the cells of this layout are big enough for their values. */
export function cellsHoldValues(layout: HeatmapLayout): boolean {
  const { width, height } = cellRect(layout, { layer: 0, groupIndex: 0 });
  return width >= VALUE_CELL.width && height >= VALUE_CELL.height;
}

/** Dark text on light cells, white on dark ones (relative luminance of the cell's colour). */
export function valueTextColor(rgb: readonly [number, number, number]): string {
  const [r, g, b] = rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 140 ? '#111111' : '#ffffff';
}

function drawCellValues(ctx: CanvasRenderingContext2D, layout: HeatmapLayout, matrix: Matrix, scale: ColorScale) {
  if (!cellsHoldValues(layout)) return;
  ctx.font = '10px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let l = 0; l < matrix.rows; l++) {
    for (let g = 0; g < matrix.cols; g++) {
      const value = matrix.values[l * matrix.cols + g] ?? NaN;
      if (!Number.isFinite(value)) continue;
      const r = cellRect(layout, { layer: l, groupIndex: g });
      ctx.fillStyle = valueTextColor(colorAt(scale, value));
      ctx.fillText(formatNumber(value), r.x + r.width / 2, r.y + r.height / 2, r.width - 2);
    }
  }
}

/**
 * A cross over a locked cell, a corner triangle on an overridden gate: in the text colour over a
 * white halo, so they read on the darkest and the brightest cell colours alike.
 */
function drawMark(ctx: CanvasRenderingContext2D, layout: HeatmapLayout, mark: CellMark, color: string) {
  const r = cellRect(layout, mark.cell);
  ctx.beginPath();
  if (mark.locked) {
    const inset = Math.min(r.width, r.height) * 0.2;
    ctx.moveTo(r.x + inset, r.y + inset);
    ctx.lineTo(r.x + r.width - inset, r.y + r.height - inset);
    ctx.moveTo(r.x + r.width - inset, r.y + inset);
    ctx.lineTo(r.x + inset, r.y + r.height - inset);
  } else {
    const size = Math.min(10, r.width / 2, r.height / 2);
    ctx.moveTo(r.x + r.width - size, r.y + 1);
    ctx.lineTo(r.x + r.width - 1, r.y + 1);
    ctx.lineTo(r.x + r.width - 1, r.y + size);
    ctx.closePath();
  }
  for (const [stroke, width] of [['#ffffff', 3.5], [color, 1.5]] as const) {
    ctx.strokeStyle = stroke;
    ctx.lineWidth = width;
    ctx.stroke();
  }
  if (!mark.locked) {
    ctx.fillStyle = color;
    ctx.fill();
  }
}

function outline(ctx: CanvasRenderingContext2D, layout: HeatmapLayout, cell: CellRef | null, color: string, width: number) {
  if (cell === null) return;
  const r = cellRect(layout, cell);
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.strokeRect(r.x + width / 2, r.y + width / 2, Math.max(1, r.width - width), Math.max(1, r.height - width));
}
