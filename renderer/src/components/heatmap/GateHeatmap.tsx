/** The layers × blocks gate heatmap: the store's gate metrics on a HeatmapCanvas, with override marks. */
import { matrixValue, type CellRef } from '../../lib/heatmap-geometry.ts';
import { useApp, useAppStore } from '../../store/app-context.tsx';
import type { AppState } from '../../store/app-store.ts';
import { HEATMAP_METRICS } from '../../store/gates-slice.ts';
import { findOverride } from '../../store/settings-slice.ts';
import type { CellEdit } from './CellEditor.tsx';
import { heatmapData } from './heatmap-data.ts';
import { overrideMarks } from './heatmap-marks.ts';
import { HeatmapCanvas, type HeatmapSource } from './HeatmapCanvas.tsx';
import { HeatmapTooltip } from './HeatmapTooltip.tsx';

const selectedCell = (s: AppState): CellRef | null => {
  const block = s.selection.block;
  const groups = s.gates.metrics.result?.groups;
  if (block === null || groups === undefined) return null;
  const groupIndex = groups.indexOf(block.group);
  return groupIndex < 0 ? null : { layer: block.layer, groupIndex };
};

const GATE_SOURCE: HeatmapSource = {
  data: (s) => heatmapData(s, s.gates.metric),
  selected: selectedCell,
  marks: (s, data) => overrideMarks(s.settings.current.overrides, data.groups, data.matrix.rows),
  axes: (data) => ({ x: 'layer', y: data.groups.some((g) => g.startsWith('expert')) ? 'block / expert' : 'block' }),
};

export function GateHeatmap() {
  const store = useAppStore();
  const metric = useApp((s) => s.gates.metric);
  const metrics = useApp((s) => s.gates.metrics.result);
  const select = useApp((s) => s.select);
  const label = HEATMAP_METRICS.find((m) => m.id === metric)?.label ?? metric;
  const blockAt = (cell: CellRef) => ({ layer: cell.layer, group: metrics?.groups[cell.groupIndex] ?? '' });
  const edit: CellEdit = {
    value: (cell) => {
      const s = store.getState();
      const gate = s.gates.metrics.result?.gate;
      return findOverride(s.settings.current, blockAt(cell))?.gate ?? (gate === undefined ? NaN : matrixValue(gate, cell));
    },
    commit: (cell, gate) => store.getState().setOverride(blockAt(cell), { gate }),
    describe: (cell) => `layer ${cell.layer} · ${blockAt(cell).group}`,
  };
  return (
    <HeatmapCanvas
      source={GATE_SOURCE}
      layers={metrics?.layers ?? 0}
      rows={metrics?.groups.length ?? 0}
      label={label}
      rowNoun="groups"
      fileStem={metric}
      testId="gate-heatmap"
      onChoose={(cell) => {
        const group = metrics?.groups[cell.groupIndex];
        if (group !== undefined) select({ layer: cell.layer, group });
      }}
      renderTooltip={(cell, layout, scrollTop) => <HeatmapTooltip cell={cell} layout={layout} metric={metric} scrollTop={scrollTop} />}
      edit={edit}
    />
  );
}
