/** Override the computed gate of the selected block, or lock it to θ_I. */
import { matrixValue } from '../../lib/heatmap-geometry.ts';
import { formatNumber } from '../../lib/format.ts';
import { useApp } from '../../store/app-context.tsx';
import { findOverride } from '../../store/settings-slice.ts';
import { SliderField } from '../common/SliderField.tsx';
import { expertGate } from '../heatmap/expert-data.ts';

export function BlockOverrideEditor() {
  const block = useApp((s) => s.selection.block);
  const override = useApp((s) => (s.selection.block === null ? undefined : findOverride(s.settings.current, s.selection.block)));
  const metrics = useApp((s) => s.gates.metrics.result);
  const experts = useApp((s) => s.experts.metrics.result);
  const setOverride = useApp((s) => s.setOverride);
  if (block === null) return <p className="small muted">Select a block in the heatmap to override or lock it.</p>;
  const groupIndex = metrics?.groups.indexOf(block.group) ?? -1;
  // An expert picked in the layer × expert view is no column of the coarse heatmap: its S per expert comes from the expert metrics.
  const computed = metrics !== null && groupIndex >= 0 ? matrixValue(metrics.gate, { layer: block.layer, groupIndex }) : expertGate(experts, block);
  const gate = override?.gate ?? null;
  return (
    <fieldset className="group" data-testid="override-editor">
      <legend>
        Block: layer {block.layer} · {block.group}
      </legend>
      <p className="small muted">Computed S_CTG = {formatNumber(computed)}</p>
      <label className="check">
        <input type="checkbox" checked={override?.locked ?? false} onChange={(e) => setOverride(block, { locked: e.currentTarget.checked })} />
        Lock (keep θ_I)
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={gate !== null}
          onChange={(e) => setOverride(block, { gate: e.currentTarget.checked ? (Number.isFinite(computed) ? computed : 1) : null })}
        />
        Override gate
      </label>
      {gate !== null && <SliderField label="Gate S" value={gate} min={0} max={4} step={0.01} onChange={(g) => setOverride(block, { gate: g })} />}
    </fieldset>
  );
}
