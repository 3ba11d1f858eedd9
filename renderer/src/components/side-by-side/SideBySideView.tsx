/** Two panes: two blocks under one method, or one block under two methods. */
import type { CompareMode, PaneIndex } from '../../store/side-by-side-slice.ts';
import { useApp } from '../../store/app-context.tsx';
import { SegmentedRadio, type SegmentOption } from '../common/SegmentedRadio.tsx';
import { LayerPane } from './LayerPane.tsx';

const MODES: readonly SegmentOption<CompareMode>[] = [
  { value: 'blocks', label: 'Two blocks' },
  { value: 'methods', label: 'One block, two methods' },
];

export function SideBySideView() {
  const mode = useApp((s) => s.sideBySide.mode);
  const setMode = useApp((s) => s.setCompareMode);
  return (
    <div className="side-by-side">
      <SegmentedRadio label="Comparison mode" name="compare-mode" options={MODES} value={mode} onChange={setMode} />
      <p className="small muted">Pane A follows the block selected in the heatmap, and selects it there when changed here.</p>
      <div className="two-col">
        {([0, 1] as PaneIndex[]).map((i) => (
          <LayerPane key={i} index={i} />
        ))}
      </div>
    </div>
  );
}
