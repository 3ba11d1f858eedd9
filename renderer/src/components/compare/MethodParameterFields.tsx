/**
 * One method's parameters as the methods table lists them (engine/protocol/method-parameters.ts):
 * a number input, a select or (a file the method reads) a path text input each. A value the method's schema refuses stays in the input,
 * marked invalid with the schema's reason, and is not applied. CRANE's values are the edit
 * settings (shared with the Edit view, undoable); a baseline's are the Methods view's own.
 */
import { useState } from 'react';
import { parameterError, parametersOf, type MergeMethodName, type MethodParameter, type ParameterValues } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { methodOf } from '../../store/methods-slice.ts';

export function MethodParameterFields({ method, label }: { method: MergeMethodName; label: string }) {
  const methodParameters = useApp((s) => s.methodParameters);
  const settings = useApp((s) => s.settings);
  const updateSettings = useApp((s) => s.updateSettings);
  const setMethodParameter = useApp((s) => s.setMethodParameter);
  const current = methodOf({ methodParameters, settings }, method);
  const values: Readonly<Record<string, unknown>> = current.method === 'crane' ? current.settings : current;
  const apply = (key: string, value: number | string): string | null => {
    const given: ParameterValues = method === 'crane' ? {} : (methodParameters[method] ?? {});
    const error = parameterError(method, { ...given, [key]: value }, settings.current);
    if (error !== null) return error;
    if (method === 'crane') updateSettings({ [key]: value }, { coalesce: `method-${key}` });
    else setMethodParameter(method, key, value);
    return null;
  };
  return (
    <div className="method-parameters">
      {parametersOf(method).map((p) => (
        <ParameterField key={p.key} parameter={p} value={values[p.key] ?? p.default} owner={label} apply={(value) => apply(p.key, value)} />
      ))}
    </div>
  );
}

function ParameterField({ parameter: p, value, owner, apply }: {
  parameter: MethodParameter;
  value: unknown;
  owner: string;
  apply: (value: number | string) => string | null;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const commit = (text: string, parsed: number | string) => {
    const refusal = typeof parsed === 'number' && !Number.isFinite(parsed) ? 'not a number' : apply(parsed);
    setError(refusal);
    setDraft(refusal === null ? null : text);
  };
  const name = `${owner} ${p.label}`;
  return (
    <label className="method-parameter" title={p.help}>
      <span>{p.label}</span>
      {p.kind === 'choice' ? (
        <select aria-label={name} value={String(value)} onChange={(e) => commit(e.currentTarget.value, e.currentTarget.value)}>
          {p.options.map((option) => <option key={option} value={option}>{option}</option>)}
        </select>
      ) : p.kind === 'path' ? (
        <input
          type="text"
          aria-label={name}
          aria-invalid={error !== null}
          placeholder="/path/to/file"
          spellCheck={false}
          value={draft ?? String(value)}
          onChange={(e) => commit(e.currentTarget.value, e.currentTarget.value.trim())}
        />
      ) : (
        <input
          type="number"
          aria-label={name}
          aria-invalid={error !== null}
          min={p.min}
          max={p.max ?? undefined}
          step={p.integer ? 1 : p.step}
          value={draft ?? String(value)}
          onChange={(e) => commit(e.currentTarget.value, e.currentTarget.value.trim() === '' ? Number.NaN : Number(e.currentTarget.value))}
        />
      )}
      {error !== null && <span className="field-error small" role="alert">{error}</span>}
    </label>
  );
}
