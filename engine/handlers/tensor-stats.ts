/**
 * Small summaries of one tensor for the side-by-side view: L2 norm, a histogram over a given
 * range, and a downsampled |x| map (mean of |x| per cell; rows = the first dimension, columns =
 * the rest flattened, so a (d_out × d_in) weight keeps its orientation and a 1-D tensor is one row).
 */
export interface Histogram {
  readonly edges: Float32Array<ArrayBuffer>;
  readonly counts: Float32Array<ArrayBuffer>;
}

export interface Matrix {
  readonly rows: number;
  readonly cols: number;
  readonly values: Float32Array<ArrayBuffer>;
}

export function l2Norm(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i] as number) ** 2;
  return Math.sqrt(sum);
}

export function range(...arrays: readonly Float32Array[]): { lo: number; hi: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of arrays) for (const v of a) if (Number.isFinite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  if (!(lo <= hi)) return { lo: 0, hi: 1 };
  // A constant tensor still gets a visible bin.
  return lo === hi ? { lo: lo - 0.5, hi: hi + 0.5 } : { lo, hi };
}

export function histogram(values: Float32Array, bins: number, lo: number, hi: number): Histogram {
  const edges = Float32Array.from({ length: bins + 1 }, (_, i) => lo + ((hi - lo) * i) / bins);
  const counts = new Float32Array(bins);
  const width = (hi - lo) / bins;
  for (const v of values) {
    if (!Number.isFinite(v) || v < lo || v > hi) continue;
    const bin = Math.min(bins - 1, Math.floor((v - lo) / width));
    counts[bin] = (counts[bin] as number) + 1;
  }
  return { edges, counts };
}

export function absMap(values: Float32Array, shape: readonly number[], size: number): Matrix {
  const rows = shape.length <= 1 ? 1 : (shape[0] as number);
  const cols = rows === 0 ? 0 : values.length / rows;
  const outRows = Math.max(1, Math.min(rows, size));
  const outCols = Math.max(1, Math.min(cols, size));
  const sums = new Float32Array(outRows * outCols);
  const counts = new Float32Array(outRows * outCols);
  for (let r = 0; r < rows; r++) {
    const or = Math.floor((r * outRows) / rows);
    for (let c = 0; c < cols; c++) {
      const cell = or * outCols + Math.floor((c * outCols) / cols);
      sums[cell] = (sums[cell] as number) + Math.abs(values[r * cols + c] as number);
      counts[cell] = (counts[cell] as number) + 1;
    }
  }
  return { rows: outRows, cols: outCols, values: sums.map((s, i) => ((counts[i] as number) > 0 ? s / (counts[i] as number) : 0)) };
}
