/** Every knob of the edit; all of it is CraneSettings, so it is undoable and saved with the project. */
import { formatNumber } from '../../lib/format.ts';
import { defaultSteepness } from '../../lib/sigmoid-mask.ts';
import { useApp } from '../../store/app-context.tsx';
import { SliderField } from '../common/SliderField.tsx';
import { BlockOverrideEditor } from './BlockOverrideEditor.tsx';
import { GroupingSwitch } from './GroupingSwitch.tsx';
import { OverrideList } from './OverrideList.tsx';
import { PresetButtons } from './PresetButtons.tsx';
import { SpecialTensorControls } from './SpecialTensorControls.tsx';
import { StageToggles } from './StageToggles.tsx';
import { UndoRedoButtons } from './UndoRedoButtons.tsx';

export function ControlsPanel() {
  const settings = useApp((s) => s.settings.current);
  const update = useApp((s) => s.updateSettings);
  const kIsDefault = Math.abs(settings.steepness - defaultSteepness(settings.tau)) < 1e-6 * settings.steepness;
  return (
    <aside className="controls" aria-label="Edit settings">
      <div className="controls-top">
        <h2>Settings</h2>
        <UndoRedoButtons />
      </div>
      <PresetButtons />
      <SliderField label="α" hint="global scale" value={settings.alpha} min={0} max={1} step={0.01} onChange={(alpha) => update({ alpha }, { coalesce: 'alpha' })} />
      <SliderField
        label="q"
        hint="keep quantile of |δ|"
        value={settings.keepQuantile}
        min={0}
        max={0.95}
        step={0.01}
        onChange={(keepQuantile) => update({ keepQuantile }, { coalesce: 'q' })}
      />
      <SliderField
        label="τ"
        hint="mask centre (σ/σ₁)"
        value={settings.tau}
        min={0.001}
        max={0.5}
        step={0.001}
        log
        onChange={(tau) => update((s) => ({ ...s, tau, steepness: kIsDefault ? defaultSteepness(tau) : s.steepness }), { coalesce: 'tau' })}
      />
      <SliderField label="k" hint="mask steepness" value={settings.steepness} min={1} max={5000} step={1} log onChange={(steepness) => update({ steepness }, { coalesce: 'k' })} />
      <p className="small muted">
        {kIsDefault ? 'k follows 4.6/τ.' : `k = ${formatNumber(settings.steepness)} (4.6/τ would be ${formatNumber(defaultSteepness(settings.tau))}).`}{' '}
        {!kIsDefault && (
          <button type="button" className="link" onClick={() => update({ steepness: defaultSteepness(settings.tau) })}>
            Reset k to 4.6/τ
          </button>
        )}
      </p>
      <StageToggles />
      <GroupingSwitch />
      <SpecialTensorControls />
      <BlockOverrideEditor />
      <OverrideList />
    </aside>
  );
}
