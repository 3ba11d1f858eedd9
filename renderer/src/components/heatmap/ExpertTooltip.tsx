/** Everything known about one expert in one layer: its gate values and how each calibration set routes to it. */
import { formatNumber, formatPercent } from '../../lib/format.ts';
import { cellRect, matrixValue, type CellRef, type HeatmapLayout } from '../../lib/heatmap-geometry.ts';
import { useApp } from '../../store/app-context.tsx';
import { EXPERT_METRICS, type ExpertMetric } from '../../store/experts-slice.ts';
import { expertBlockName, expertMatrix } from './expert-data.ts';
import { describeMark, overrideMarks } from './heatmap-marks.ts';

const GATE_ROWS: readonly ExpertMetric[] = ['gate', 'sumReasoning', 'sumAgent'];
const SETS = [
  { set: 'reasoning', label: 'D_R', share: 'shareReasoning', probability: 'probabilityReasoning' },
  { set: 'agent', label: 'D_A', share: 'shareAgent', probability: 'probabilityAgent' },
  { set: 'format', label: 'D_F', share: 'shareFormat', probability: 'probabilityFormat' },
] as const;

export function ExpertTooltip({ cell, layout, scrollTop }: { cell: CellRef; layout: HeatmapLayout; scrollTop: number }) {
  const metrics = useApp((s) => s.experts.metrics.result);
  const metric = useApp((s) => s.experts.metric);
  const overrides = useApp((s) => s.settings.current.overrides);
  if (metrics === null || cell.groupIndex >= metrics.experts) return null;
  const value = (id: ExpertMetric) => {
    const matrix = expertMatrix(metrics, id);
    return matrix === null ? NaN : matrixValue(matrix, cell);
  };
  const label = (id: ExpertMetric) => EXPERT_METRICS.find((m) => m.id === id)?.label ?? id;
  const override = describeMark(overrideMarks(overrides, [expertBlockName(cell.groupIndex)], Infinity).find((m) => m.cell.layer === cell.layer), formatNumber);
  const rect = cellRect(layout, cell);
  const left = Math.min(rect.x + rect.width + 8, layout.left + layout.width - 230);
  return (
    <div className="tooltip" role="tooltip" style={{ left, top: rect.y + rect.height + 4 - scrollTop }} data-testid="expert-tooltip">
      <div className="tooltip-title">
        layer {cell.layer} · expert {cell.groupIndex}
      </div>
      {override !== null && <div className="tooltip-note">{override}</div>}
      <table>
        <tbody>
          <tr className={metric === 'reasoningVsAgent' ? 'strong' : undefined}>
            <th>{label('reasoningVsAgent')}</th>
            <td>{formatNumber(value('reasoningVsAgent'))}</td>
          </tr>
          {GATE_ROWS.map((id) => (
            <tr key={id} className={id === metric ? 'strong' : undefined}>
              <th>{label(id)}</th>
              <td>{formatNumber(value(id))}</td>
            </tr>
          ))}
          {SETS.map(({ set, label: name, share, probability }) => {
            const routed = metrics.routing[set];
            const count = routed === null ? NaN : matrixValue(routed.routed, cell);
            const strong = metric === share || metric === probability;
            return (
              <tr key={set} className={strong ? 'strong' : undefined}>
                <th>{name} routed · p̄</th>
                <td>
                  {Number.isFinite(count) ? `${count} of ${routed?.tokens ?? 0} (${formatPercent(value(share))})` : '—'} · {formatNumber(value(probability))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
