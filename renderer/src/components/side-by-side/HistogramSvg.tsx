/** A small histogram as SVG bars (log-scaled heights so tails stay visible). */
import type { Histogram } from '../../protocol.ts';
import { formatNumber } from '../../lib/format.ts';

export function HistogramSvg({ histogram, label, width = 150, height = 56 }: { histogram: Histogram; label: string; width?: number; height?: number }) {
  const counts = Array.from(histogram.counts);
  const top = Math.log1p(Math.max(1, ...counts));
  const barWidth = width / Math.max(1, counts.length);
  const lo = histogram.edges[0] ?? 0;
  const hi = histogram.edges[histogram.edges.length - 1] ?? 0;
  return (
    <figure className="histogram">
      <svg width={width} height={height} role="img" aria-label={`${label} histogram from ${formatNumber(lo)} to ${formatNumber(hi)}`}>
        {counts.map((c, i) => {
          const h = (Math.log1p(c) / top) * (height - 2);
          return <rect key={i} x={i * barWidth} y={height - h} width={Math.max(0.5, barWidth - 0.5)} height={h} fill="var(--series-1)" />;
        })}
      </svg>
      <figcaption className="histogram-axis small muted">
        <span>{formatNumber(lo, 2)}</span>
        <span>{formatNumber(hi, 2)}</span>
      </figcaption>
    </figure>
  );
}
