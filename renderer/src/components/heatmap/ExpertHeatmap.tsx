/**
 * The layers × experts heatmap of an MoE analysis: S per expert and its gate sums, or how the
 * calibration sets route (which experts carry reasoning, which tool use). A click selects the
 * expert's block (`expert.17`), which the side-by-side view can then inspect.
 */
import type { CellRef } from '../../lib/heatmap-geometry.ts';
import { useApp, useAppStore } from '../../store/app-context.tsx';
import type { AppState } from '../../store/app-store.ts';
import { EXPERT_METRICS } from '../../store/experts-slice.ts';
import { findOverride } from '../../store/settings-slice.ts';
import type { CellEdit } from './CellEditor.tsx';
import { expertBlockName, expertGate, expertHeatmapData, expertOfBlock } from './expert-data.ts';
import { ExpertTooltip } from './ExpertTooltip.tsx';
import { overrideMarks } from './heatmap-marks.ts';
import { HeatmapCanvas, type HeatmapSource } from './HeatmapCanvas.tsx';

function selectedExpert(s: AppState): CellRef | null {
  const block = s.selection.block;
  const expert = block === null ? null : expertOfBlock(block.group);
  return block === null || expert === null ? null : { layer: block.layer, groupIndex: expert };
}

const EXPERT_SOURCE: HeatmapSource = {
  data: (s) => expertHeatmapData(s.experts.metrics.result, s.experts.metric),
  selected: selectedExpert,
  marks: (s, data) => overrideMarks(s.settings.current.overrides, data.groups.map((_, e) => expertBlockName(e)), data.matrix.rows),
  axes: () => ({ x: 'layer', y: 'expert' }),
};

const blockAt = (cell: CellRef) => ({ layer: cell.layer, group: expertBlockName(cell.groupIndex) });

export function ExpertHeatmap() {
  const store = useAppStore();
  const edit: CellEdit = {
    value: (cell) => {
      const s = store.getState();
      return findOverride(s.settings.current, blockAt(cell))?.gate ?? expertGate(s.experts.metrics.result, blockAt(cell));
    },
    commit: (cell, gate) => store.getState().setOverride(blockAt(cell), { gate }),
    describe: (cell) => `layer ${cell.layer} · expert ${cell.groupIndex}`,
  };
  const metric = useApp((s) => s.experts.metric);
  const metrics = useApp((s) => s.experts.metrics.result);
  const select = useApp((s) => s.select);
  const label = EXPERT_METRICS.find((m) => m.id === metric)?.label ?? metric;
  return (
    <HeatmapCanvas
      source={EXPERT_SOURCE}
      layers={metrics?.layers ?? 0}
      rows={metrics?.experts ?? 0}
      label={label}
      rowNoun="experts"
      fileStem={`experts-${metric}`}
      testId="expert-heatmap"
      onChoose={(cell) => select(blockAt(cell))}
      renderTooltip={(cell, layout, scrollTop) => <ExpertTooltip cell={cell} layout={layout} scrollTop={scrollTop} />}
      edit={edit}
    />
  );
}
