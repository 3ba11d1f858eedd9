/** The heatmap's metric, as a radio group (arrow keys move between metrics). */
import { HEATMAP_METRICS, type HeatmapMetric } from '../../store/gates-slice.ts';

export function MetricSwitch({ value, onChange }: { value: HeatmapMetric; onChange: (m: HeatmapMetric) => void }) {
  return (
    <div className="segmented" role="radiogroup" aria-label="Heatmap metric">
      {HEATMAP_METRICS.map((m) => (
        <label key={m.id} className={m.id === value ? 'segment active' : 'segment'} title={m.description}>
          <input type="radio" name="heatmap-metric" value={m.id} checked={m.id === value} onChange={() => onChange(m.id)} />
          {m.label}
        </label>
      ))}
    </div>
  );
}
