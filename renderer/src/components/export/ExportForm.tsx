import type { FormEvent } from 'react';
import { checkPath } from '../../lib/path-check.ts';
import type { ExportDtype } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { MethodSelect } from '../common/MethodSelect.tsx';
import { PathField } from '../pair/PathField.tsx';
import { ExportPlan } from './ExportPlan.tsx';

const DTYPES: { value: ExportDtype; label: string }[] = [
  { value: 'source', label: 'Same as source' },
  { value: 'BF16', label: 'BF16' },
  { value: 'F16', label: 'F16' },
  { value: 'F32', label: 'F32' },
];

export function ExportForm({ disabled, onSubmit }: { disabled: boolean; onSubmit: () => void }) {
  const form = useApp((s) => s.exporting.form);
  const setForm = useApp((s) => s.setExportForm);
  const valid = checkPath(form.outDir).ok && form.shardGiB > 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid && !disabled) onSubmit();
  };
  return (
    <form className="form" onSubmit={submit}>
      <PathField label="Output folder (created; must not exist unless overwrite)" purpose="export" value={form.outDir} onChange={(outDir) => setForm({ outDir })} />
      <div className="form-row">
        <label>
          Dtype
          <select value={form.dtype} onChange={(e) => setForm({ dtype: e.currentTarget.value as ExportDtype })}>
            {DTYPES.map((d) => (
              <option key={d.value} value={d.value}>
                {d.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Shard size (GiB)
          <input type="number" min={0.001} step="any" value={form.shardGiB} onChange={(e) => setForm({ shardGiB: Number(e.currentTarget.value) || 0 })} />
        </label>
        <label>
          Method
          <MethodSelect value={form.method} onChange={(method) => setForm({ method })} />
        </label>
      </div>
      <label className="check">
        <input type="checkbox" checked={form.overwrite} onChange={(e) => setForm({ overwrite: e.currentTarget.checked })} />
        Replace a previous export in this folder
      </label>
      <ExportPlan />
      <div className="button-row">
        <button type="submit" className="primary" disabled={!valid || disabled}>
          Export
        </button>
      </div>
    </form>
  );
}
