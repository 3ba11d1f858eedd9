/**
 * Router, think-row and lm_head rules (shared/spec/crane.md, "Special tensors"), and the protected
 * lm_head rows. The Router setting is offered only for a model with MoE routers: on a dense model
 * it would change nothing in the export.
 */
import type { CraneSettings } from '../../protocol.ts';
import { hasRouters } from '../../lib/model-routers.ts';
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
  const routed = useApp((s) => hasRouters(s.pair.summary.result?.instruct ?? null) || s.experts.metrics.result !== null);
  const fields = routed ? FIELDS : FIELDS.filter(({ key }) => key !== 'routerAlphaFraction');
  return (
    <details className="group">
      <summary>{routed ? 'Router, think rows, lm_head' : 'Think rows, lm_head'}</summary>
      {fields.map(({ key, label, hint, max }) => (
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
