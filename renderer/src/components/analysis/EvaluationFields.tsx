/**
 * Where Verify measures: the calibration sets themselves (the default: the gradients use every
 * example, as the reference does), a held-out share of them (kept out of the gradients, so
 * changing it re-runs the analysis), or separate evaluation files (Verify's alone: no stage re-runs).
 */
import type { EvaluationSet } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { PathField } from '../pair/PathField.tsx';

const SOURCES: { source: EvaluationSet['source']; label: string }[] = [
  { source: 'calibration', label: 'the calibration sets (no held-out split)' },
  { source: 'held-out', label: 'a held-out share of the calibration sets' },
  { source: 'files', label: 'evaluation files' },
];

function sourceNamed(value: string): EvaluationSet['source'] {
  return SOURCES.find((s) => s.source === value)?.source ?? 'calibration';
}

/** The set a newly chosen source starts from, keeping what the current one already says. */
function switchTo(source: EvaluationSet['source'], current: EvaluationSet): EvaluationSet {
  if (source === current.source) return current;
  if (source === 'held-out') return { source, fraction: 0.25 };
  return source === 'files' ? { source, reasoning: '/', agent: '/' } : { source };
}

export function EvaluationFields() {
  const settings = useApp((s) => s.analysis.settings);
  const setSettings = useApp((s) => s.setAnalysisSettings);
  const evaluation = settings.evaluation;
  const set = (next: EvaluationSet) => setSettings({ ...settings, evaluation: next });
  return (
    <fieldset className="evaluation-fields">
      <label className="inline-field">
        Verify measures on
        <select value={evaluation.source} onChange={(e) => set(switchTo(sourceNamed(e.currentTarget.value), evaluation))}>
          {SOURCES.map(({ source, label }) => (
            <option key={source} value={source}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {evaluation.source === 'held-out' && (
        <label className="inline-field">
          Held-out share (kept out of the gradients)
          <input
            type="number"
            min={0.05}
            max={0.9}
            step={0.05}
            value={evaluation.fraction}
            onChange={(e) => set({ source: 'held-out', fraction: Math.min(0.9, Math.max(0.05, Number(e.currentTarget.value) || 0.05)) })}
          />
        </label>
      )}
      {evaluation.source === 'files' && (['reasoning', 'agent'] as const).map((key) => (
        <PathField
          key={key}
          label={key === 'reasoning' ? 'Evaluation chats for L_R (JSONL, as D_R)' : 'Evaluation chats for L_A (JSONL, as D_A)'}
          purpose="calibration"
          placeholder="/absolute/path/to/eval.jsonl"
          value={evaluation[key] === '/' ? '' : evaluation[key]}
          onChange={(v) => set({ ...evaluation, [key]: v || '/' })}
        />
      ))}
    </fieldset>
  );
}
