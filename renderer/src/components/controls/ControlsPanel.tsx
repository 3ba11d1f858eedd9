/** Every knob of the edit; all of it is CraneSettings, so it is undoable and saved with the project. */
import { defaultSteepness, followsTau } from '../../protocol.ts';
import { BlockOverrideEditor } from './BlockOverrideEditor.tsx';
import { GranularitySwitch } from './GranularitySwitch.tsx';
import { OverrideList } from './OverrideList.tsx';
import { PresetButtons } from './PresetButtons.tsx';
import { SettingSlider } from './SettingSlider.tsx';
import { SpecialTensorControls } from './SpecialTensorControls.tsx';
import { SteepnessNote } from './SteepnessNote.tsx';
import { StageToggles } from './StageToggles.tsx';
import { UndoRedoButtons } from './UndoRedoButtons.tsx';

export function ControlsPanel() {
  return (
    <aside className="controls" aria-label="Edit settings">
      <div className="controls-top">
        <h2>Settings</h2>
        <UndoRedoButtons />
      </div>
      <PresetButtons />
      <SettingSlider label="α" hint="global scale" min={0} max={1} step={0.01} coalesce="alpha" select={(s) => s.alpha} apply={(s, alpha) => ({ ...s, alpha })} />
      <SettingSlider
        label="q"
        hint="keep quantile of |δ|"
        min={0}
        max={0.95}
        step={0.01}
        coalesce="q"
        select={(s) => s.keepQuantile}
        apply={(s, keepQuantile) => ({ ...s, keepQuantile })}
      />
      <SettingSlider
        label="τ"
        hint="mask centre (σ/σ₁)"
        min={0.001}
        max={0.5}
        step={0.001}
        log
        coalesce="tau"
        select={(s) => s.tau}
        apply={(s, tau) => ({ ...s, tau, steepness: followsTau(s) ? defaultSteepness(tau) : s.steepness })}
      />
      <SettingSlider label="k" hint="mask steepness" min={1} max={5000} step={1} log coalesce="k" select={(s) => s.steepness} apply={(s, steepness) => ({ ...s, steepness })} />
      <SteepnessNote />
      <StageToggles />
      <GranularitySwitch />
      <SpecialTensorControls />
      <BlockOverrideEditor />
      <OverrideList />
    </aside>
  );
}
