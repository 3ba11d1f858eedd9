/** A select of the merge methods (CRANE and the baselines), by their display names. */
import { METHOD_KINDS, METHOD_LABELS } from '../../lib/presets.ts';
import type { MergeMethodKind } from '../../protocol.ts';

export function MethodSelect({ value, onChange, ariaLabel, disabled }: {
  value: MergeMethodKind;
  onChange: (method: MergeMethodKind) => void;
  ariaLabel?: string;
  disabled?: boolean;
}) {
  return (
    <select aria-label={ariaLabel} value={value} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value as MergeMethodKind)}>
      {METHOD_KINDS.map((k) => (
        <option key={k} value={k}>
          {METHOD_LABELS[k]}
        </option>
      ))}
    </select>
  );
}
