/** One tensor: Instruct / Thinking / Edited columns, the δ histogram, kept fraction, |Δ| maps. */
import { formatNumber, formatPercent } from '../../lib/format.ts';
import type { TensorView } from '../../protocol.ts';
import { HistogramSvg } from './HistogramSvg.tsx';
import { MatrixCanvas } from './MatrixCanvas.tsx';

export function TensorCompare({ tensor }: { tensor: TensorView }) {
  const columns = [
    { key: 'instruct', label: 'Instruct', norm: tensor.norms.instruct, hist: tensor.values.instruct },
    { key: 'thinking', label: 'Thinking', norm: tensor.norms.thinking, hist: tensor.values.thinking },
    { key: 'edited', label: 'Edited', norm: tensor.norms.edited, hist: tensor.values.edited },
  ] as const;
  return (
    <article className="tensor">
      <h3 className="mono small" title={tensor.name}>
        {tensor.name.replace(/^model\.layers\.\d+\./, '')} <span className="muted">[{tensor.shape.join(' × ')}]</span>
      </h3>
      <div className="tensor-columns">
        {columns.map((c) => (
          <div key={c.key} className="tensor-column">
            <div className="small">
              <strong>{c.label}</strong> ‖·‖ {formatNumber(c.norm)}
            </div>
            <HistogramSvg histogram={c.hist} label={`${c.label} values`} />
          </div>
        ))}
      </div>
      <div className="tensor-columns">
        <div className="tensor-column">
          <div className="small">
            <strong>δ</strong> ‖δ‖ {formatNumber(tensor.norms.delta)} · kept {formatPercent(tensor.keptFraction)}
          </div>
          <HistogramSvg histogram={tensor.delta} label="δ values" />
        </div>
        <div className="tensor-column">
          <div className="small">|Δ| before projection</div>
          <MatrixCanvas matrix={tensor.deltaMap.before} label="|Δ| before projection" max={maxOf(tensor.deltaMap.before.values)} />
        </div>
        <div className="tensor-column">
          <div className="small">|Δ| after projection</div>
          <MatrixCanvas matrix={tensor.deltaMap.after} label="|Δ| after projection" max={maxOf(tensor.deltaMap.before.values)} />
        </div>
      </div>
    </article>
  );
}

const maxOf = (values: Float32Array) => values.reduce((a, v) => (v > a ? v : a), 0) || 1;
