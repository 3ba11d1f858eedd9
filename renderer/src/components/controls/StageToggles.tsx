import type { CraneSettings } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';

const STAGES: { key: keyof CraneSettings['stages']; label: string; title: string }[] = [
  { key: 'threshold', label: 'T', title: 'Stage 1: magnitude thresholding T(δ)' },
  { key: 'gate', label: 'CTG', title: 'Stage 2: Conservative Taylor Gate' },
  { key: 'gsp', label: 'GSP', title: 'Stage 3: Graduated Sigmoidal Projection' },
];

export function StageToggles() {
  const stages = useApp((s) => s.settings.current.stages);
  const update = useApp((s) => s.updateSettings);
  return (
    <fieldset className="group">
      <legend>Stages</legend>
      <div className="button-row">
        {STAGES.map(({ key, label, title }) => (
          <label key={key} className="check" title={title}>
            <input type="checkbox" checked={stages[key]} onChange={(e) => update((s) => ({ ...s, stages: { ...s.stages, [key]: e.currentTarget.checked } }))} />
            {label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
