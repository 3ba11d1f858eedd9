/** The three calibration sets and where Verify measures: changing the sets makes cached stages stale. */
import type { AnalysisSettings } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { PathField } from '../pair/PathField.tsx';
import { EvaluationFields } from './EvaluationFields.tsx';

const SETS: { key: keyof AnalysisSettings['calibration']; label: string }[] = [
  { key: 'reasoning', label: 'D_R reasoning prompts (JSONL)' },
  { key: 'agent', label: 'D_A tool-use prompts (JSONL)' },
  { key: 'format', label: 'D_F format traces (JSONL)' },
];

export function CalibrationFields() {
  const settings = useApp((s) => s.analysis.settings);
  const setSettings = useApp((s) => s.setAnalysisSettings);
  return (
    <details className="group">
      <summary>Calibration sets and limits</summary>
      {SETS.map(({ key, label }) => (
        <PathField
          key={key}
          label={label}
          purpose="calibration"
          placeholder="/absolute/path/to/set.jsonl"
          value={settings.calibration[key] === '/' ? '' : settings.calibration[key]}
          onChange={(v) => setSettings({ ...settings, calibration: { ...settings.calibration, [key]: v || '/' } })}
        />
      ))}
      <EvaluationFields />
    </details>
  );
}
