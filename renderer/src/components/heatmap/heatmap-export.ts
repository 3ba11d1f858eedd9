/**
 * The heatmap as files a researcher can take elsewhere: CSV (one row per layer, one column per
 * block, values at full float32 precision, not the display's 3 digits) and the canvas as PNG.
 */
import type { Matrix } from '../../protocol.ts';

const csvField = (text: string) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

export function heatmapCsv(matrix: Matrix, groups: readonly string[]): string {
  const lines = [['layer', ...groups].map(csvField).join(',')];
  for (let layer = 0; layer < matrix.rows; layer++) {
    const row = Array.from({ length: matrix.cols }, (_, g) => {
      const v = matrix.values[layer * matrix.cols + g] ?? NaN;
      return Number.isFinite(v) ? String(v) : '';
    });
    lines.push([String(layer), ...row].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Saves `blob` under `name` through a temporary link (the browser's, or Electron's, download). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
