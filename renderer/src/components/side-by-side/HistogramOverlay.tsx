/**
 * Value histograms drawn over each other on one axis (Instruct, Thinking, Edited share the
 * engine's bin edges), as step outlines so every one stays visible; heights log-scaled so the
 * tails show. A single histogram (δ) is the same chart with one series.
 */
import type { Histogram } from '../../protocol.ts';
import { formatNumber } from '../../lib/format.ts';

export interface HistogramSeries {
  readonly label: string;
  readonly histogram: Histogram;
  readonly color: string;
}

/** The step outline of one histogram as an SVG path, bars `width / bins` wide, heights log1p(count)/log1p(top). */
export function stepPath(counts: ArrayLike<number>, top: number, width: number, height: number): string {
  const n = counts.length;
  if (n === 0) return '';
  const bar = width / n;
  const y = (c: number) => (height - (Math.log1p(c) / Math.log1p(Math.max(1, top))) * (height - 2)).toFixed(2);
  let d = `M0,${height}`;
  for (let i = 0; i < n; i++) {
    const h = y(counts[i] ?? 0);
    d += `L${(i * bar).toFixed(2)},${h}L${((i + 1) * bar).toFixed(2)},${h}`;
  }
  return `${d}L${width},${height}`;
}

export function HistogramOverlay({ series, label, width = 300, height = 64 }: { series: readonly HistogramSeries[]; label: string; width?: number; height?: number }) {
  const first = series[0]?.histogram;
  const top = Math.max(1, ...series.flatMap((s) => Array.from(s.histogram.counts)));
  const lo = first?.edges[0] ?? 0;
  const hi = first?.edges[first.edges.length - 1] ?? 0;
  return (
    <figure className="histogram" data-testid="histogram-overlay">
      <svg width={width} height={height} role="img" aria-label={`${label} histogram from ${formatNumber(lo)} to ${formatNumber(hi)}`}>
        {series.map((s) => (
          <path key={s.label} data-series={s.label} d={stepPath(s.histogram.counts, top, width, height)} fill={s.color} fillOpacity={series.length > 1 ? 0.12 : 0.5} stroke={s.color} strokeWidth={1.25} />
        ))}
      </svg>
      <figcaption className="histogram-axis small muted" style={{ maxWidth: width }}>
        <span>{formatNumber(lo, 2)}</span>
        {series.length > 1 && (
          <span className="histogram-legend">
            {series.map((s) => (
              <span key={s.label} style={{ color: s.color }}>
                ▬ {s.label}
              </span>
            ))}
          </span>
        )}
        <span>{formatNumber(hi, 2)}</span>
      </figcaption>
    </figure>
  );
}
