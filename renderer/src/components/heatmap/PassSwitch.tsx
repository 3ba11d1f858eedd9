/** The gate heatmap's pass switch for a looped model: combined (default), each pass, or the passes' disagreement — offered for the metrics that have per-pass values. */
import { useApp } from '../../store/app-context.tsx';
import type { PassView } from '../../store/passes-slice.ts';
import { SegmentedRadio } from '../common/SegmentedRadio.tsx';
import { passViews } from './pass-data.ts';

export function PassSwitch() {
  const passes = useApp((s) => s.passes.metrics.result);
  const metric = useApp((s) => s.gates.metric);
  const view = useApp((s) => s.passes.view);
  const setView = useApp((s) => s.setPassView);
  const options = passes === null ? [] : passViews(passes, metric);
  if (options.length === 0) return null;
  const shown = options.some((o) => o.value === view) ? view : 'combined';
  return <SegmentedRadio<PassView> label="Loop pass" name="heatmap-pass" options={options} value={shown} onChange={setView} />;
}
