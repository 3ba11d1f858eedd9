/** The heatmap's metric, as a radio group (arrow keys move between metrics). */
import { HEATMAP_METRICS, type HeatmapMetric } from '../../store/gates-slice.ts';
import { SegmentedRadio } from '../common/SegmentedRadio.tsx';

const OPTIONS = HEATMAP_METRICS.map((m) => ({ value: m.id, label: m.label, title: m.description }));

export function MetricSwitch({ value, onChange }: { value: HeatmapMetric; onChange: (m: HeatmapMetric) => void }) {
  return <SegmentedRadio label="Heatmap metric" name="heatmap-metric" options={OPTIONS} value={value} onChange={onChange} />;
}
