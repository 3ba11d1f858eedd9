/** Which block and method one pane shows. */
import { useApp } from '../../store/app-context.tsx';
import type { PaneIndex } from '../../store/side-by-side-slice.ts';
import { MethodSelect } from '../common/MethodSelect.tsx';
import { withExpertBlocks } from '../heatmap/expert-data.ts';

const DEFAULT_GROUPS = ['attention', 'ffn', 'expert', 'shared_expert', 'router', 'linear_attn', 'norm'];

export function PanePicker({ index }: { index: PaneIndex }) {
  const pane = useApp((s) => s.sideBySide.panes[index]);
  const mode = useApp((s) => s.sideBySide.mode);
  const metrics = useApp((s) => s.gates.metrics.result);
  const setPane = useApp((s) => s.setPane);
  const experts = useApp((s) => s.experts.metrics.result?.experts ?? 0);
  // An MoE analysis offers each routed expert (`expert.17`) whatever the heatmap's granularity.
  const groups = withExpertBlocks(metrics?.groups ?? DEFAULT_GROUPS, experts);
  const layers = metrics?.layers ?? 256;
  const blockShared = index === 1 && mode === 'methods';
  const methodShared = index === 1 && mode === 'blocks';
  const name = index === 0 ? 'A' : 'B';
  return (
    <div className="pane-picker">
      <label>
        Layer
        <input
          type="number"
          min={0}
          max={layers - 1}
          value={pane.block.layer}
          disabled={blockShared}
          aria-label={`Pane ${name} layer`}
          onChange={(e) => setPane(index, { block: { ...pane.block, layer: Math.min(layers - 1, Math.max(0, Math.trunc(Number(e.currentTarget.value) || 0))) } })}
        />
      </label>
      <label>
        Block
        <select aria-label={`Pane ${name} block`} value={pane.block.group} disabled={blockShared} onChange={(e) => setPane(index, { block: { ...pane.block, group: e.currentTarget.value } })}>
          {groups.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
      </label>
      <label>
        Method
        <MethodSelect ariaLabel={`Pane ${name} method`} value={pane.method} disabled={methodShared} onChange={(method) => setPane(index, { method })} />
      </label>
    </div>
  );
}
