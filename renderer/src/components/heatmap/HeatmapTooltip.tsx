/** Values of the hovered block: its override or lock, the shown metric first, then the other gate metrics. */
import { formatNumber } from '../../lib/format.ts';
import { cellRect, matrixValue, type CellRef, type HeatmapLayout } from '../../lib/heatmap-geometry.ts';
import { useApp } from '../../store/app-context.tsx';
import { HEATMAP_METRICS, type HeatmapMetric } from '../../store/gates-slice.ts';
import { metricMatrix } from './heatmap-data.ts';
import { describeMark, overrideMarks } from './heatmap-marks.ts';

export function HeatmapTooltip({ cell, layout, metric, scrollTop }: { cell: CellRef; layout: HeatmapLayout; metric: HeatmapMetric; scrollTop: number }) {
  const gates = useApp((s) => s.gates);
  const settings = useApp((s) => s.settings);
  const preview = useApp((s) => s.preview);
  const passes = useApp((s) => s.passes);
  const group = gates.metrics.result?.groups[cell.groupIndex];
  if (group === undefined) return null;
  const override = describeMark(overrideMarks(settings.current.overrides, [group], Infinity).find((m) => m.cell.layer === cell.layer), formatNumber);
  const state = { gates, settings, preview, passes };
  const rows = [metric, ...HEATMAP_METRICS.map((m) => m.id).filter((m) => m !== metric)].map((id) => {
    const matrix = metricMatrix(state, id);
    return { id, label: HEATMAP_METRICS.find((m) => m.id === id)?.label ?? id, value: matrix === null ? NaN : matrixValue(matrix, cell) };
  });
  const rect = cellRect(layout, cell);
  const left = Math.min(rect.x + rect.width + 8, layout.left + layout.width - 230);
  return (
    <div className="tooltip" role="tooltip" style={{ left, top: rect.y + rect.height + 4 - scrollTop }} data-testid="heatmap-tooltip">
      <div className="tooltip-title">
        layer {cell.layer} · {group}
      </div>
      {override !== null && <div className="tooltip-note" data-testid="heatmap-tooltip-override">{override}</div>}
      <table>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.id} className={i === 0 ? 'strong' : undefined}>
              <th>{r.label}</th>
              <td>{formatNumber(r.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
