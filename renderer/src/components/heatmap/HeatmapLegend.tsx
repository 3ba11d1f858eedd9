import { legendGradient, type ColorScale } from '../../lib/color-scale.ts';
import { formatNumber } from '../../lib/format.ts';

export function HeatmapLegend({ scale, label }: { scale: ColorScale; label: string }) {
  const mid = (scale.min + scale.max) / 2;
  return (
    <div className="legend" aria-label={`${label} colour scale from ${formatNumber(scale.min)} to ${formatNumber(scale.max)}`}>
      <span className="legend-label">{label}</span>
      <div className="legend-bar" style={{ background: legendGradient(scale.kind) }} />
      <div className="legend-ticks">
        <span>{formatNumber(scale.min)}</span>
        <span>{formatNumber(mid)}</span>
        <span>{formatNumber(scale.max)}{scale.kind === 'sequential' ? '+' : ''}</span>
      </div>
    </div>
  );
}
