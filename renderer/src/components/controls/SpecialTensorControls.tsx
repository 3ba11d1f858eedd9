/** Router, think-row and lm_head rules (shared/spec/crane.md, "Special tensors"), and the protected lm_head rows. */
import type { CraneSettings } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { SliderField } from '../common/SliderField.tsx';
import { ProtectedTokenField } from './ProtectedTokenField.tsx';

type SpecialKey = Exclude<keyof CraneSettings['special'], 'protectedTokens'>;

const FIELDS: { key: SpecialKey; label: string; hint: string; max: number }[] = [
  { key: 'routerAlphaFraction', label: 'Router', hint: 'SLERP t = α × this', max: 1 },
  { key: 'thinkRows', label: '<think> rows', hint: 'move towards θ_T', max: 1 },
  { key: 'lmHeadScale', label: 'lm_head', hint: 'θ_I + this × δ', max: 0.2 },
];

export function SpecialTensorControls() {
  const special = useApp((s) => s.settings.current.special);
  const update = useApp((s) => s.updateSettings);
  return (
    <details className="group">
      <summary>Router, think rows, lm_head</summary>
      {FIELDS.map(({ key, label, hint, max }) => (
        <SliderField
          key={key}
          label={label}
          hint={hint}
          value={special[key]}
          min={0}
          max={max}
          step={0.01}
          onChange={(v) => update((s) => ({ ...s, special: { ...s.special, [key]: v } }), { coalesce: `special:${key}` })}
        />
      ))}
      <ProtectedTokenField />
    </details>
  );
}
