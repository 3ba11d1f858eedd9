/**
 * One tensor under one method: the value histograms of Instruct, Thinking and the edit overlaid,
 * the δ histogram with the share the method keeps, and the |Δ| maps on one colour scale (with
 * its legend). CRANE shows |Δ| before and after its GSP projection; a baseline has no projection,
 * so it shows its one update, labelled as such.
 */
import { scaleFor, type ColorScale } from '../../lib/color-scale.ts';
import { formatNumber, formatPercent } from '../../lib/format.ts';
import { METHOD_LABELS } from '../../lib/merge-methods.ts';
import type { MergeMethodName, TensorView } from '../../protocol.ts';
import { HeatmapLegend } from '../heatmap/HeatmapLegend.tsx';
import { HistogramOverlay } from './HistogramOverlay.tsx';
import { MatrixCanvas } from './MatrixCanvas.tsx';

export function TensorCompare({ tensor, method }: { tensor: TensorView; method: MergeMethodName }) {
  const values = [
    { label: 'Instruct', norm: tensor.norms.instruct, histogram: tensor.values.instruct, color: 'var(--series-1)' },
    { label: 'Thinking', norm: tensor.norms.thinking, histogram: tensor.values.thinking, color: 'var(--series-2)' },
    { label: 'Edited', norm: tensor.norms.edited, histogram: tensor.values.edited, color: 'var(--series-3)' },
  ];
  const maps = deltaMaps(tensor, method);
  const scale: ColorScale = { ...scaleFor([...tensor.deltaMap.before.values, ...tensor.deltaMap.after.values], 'sequential'), min: 0 };
  return (
    <article className="tensor" data-testid="tensor-compare">
      <h3 className="mono small" title={tensor.name}>
        {tensor.name.replace(/^model\.layers\.\d+\./, '')} <span className="muted">[{tensor.shape.join(' × ')}]</span>
      </h3>
      <div className="tensor-row">
        <div>
          <div className="small">
            values · ‖·‖ {values.map((v) => `${v.label} ${formatNumber(v.norm)}`).join(' · ')}
          </div>
          <HistogramOverlay series={values} label="Instruct, Thinking and Edited values" />
        </div>
        <div>
          <div className="small">
            <strong>δ</strong> ‖δ‖ {formatNumber(tensor.norms.delta)} · kept {formatPercent(tensor.keptFraction)}
          </div>
          <HistogramOverlay series={[{ label: 'δ', histogram: tensor.delta, color: 'var(--series-1)' }]} label="δ values" width={180} />
        </div>
      </div>
      <div className="tensor-row">
        {maps.map((m) => (
          <div key={m.label}>
            <div className="small">{m.label}</div>
            <MatrixCanvas matrix={m.matrix} shape={tensor.shape} label={m.label} scale={scale} />
          </div>
        ))}
        <HeatmapLegend scale={scale} label="|Δ| (mean per cell)" />
      </div>
    </article>
  );
}

/** The maps to draw and what they are: CRANE's before/after GSP, a baseline's one update. */
function deltaMaps(tensor: TensorView, method: MergeMethodName) {
  if (method === 'crane') {
    return [
      { label: '|Δ| before GSP projection', matrix: tensor.deltaMap.before },
      { label: '|Δ| after GSP projection (the edit)', matrix: tensor.deltaMap.after },
    ];
  }
  return [{ label: `|Δ| ${METHOD_LABELS[method]} update (no projection)`, matrix: tensor.deltaMap.after }];
}
