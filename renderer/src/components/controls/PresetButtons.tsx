import { PRESETS } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';

export function PresetButtons() {
  const applyPreset = useApp((s) => s.applyPreset);
  return (
    <fieldset className="group">
      <legend>Presets</legend>
      <div className="button-row wrap">
        {PRESETS.map((p) => (
          <button key={p.id} type="button" title={p.description} onClick={() => applyPreset(p.id)}>
            {p.label}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
