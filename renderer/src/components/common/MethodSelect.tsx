/** A select of the merge methods (CRANE and the baselines), by their display names. */
import { METHOD_LABELS, METHOD_NAMES } from '../../lib/merge-methods.ts';
import type { MergeMethodName } from '../../protocol.ts';

export function MethodSelect({ value, onChange, ariaLabel, disabled }: {
  value: MergeMethodName;
  onChange: (method: MergeMethodName) => void;
  ariaLabel?: string;
  disabled?: boolean;
}) {
  return (
    <select aria-label={ariaLabel} value={value} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value as MergeMethodName)}>
      {METHOD_NAMES.map((k) => (
        <option key={k} value={k}>
          {METHOD_LABELS[k]}
        </option>
      ))}
    </select>
  );
}
