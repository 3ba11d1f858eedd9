import { formatNumber } from '../../lib/format.ts';
import { useApp } from '../../store/app-context.tsx';

export function OverrideList() {
  const overrides = useApp((s) => s.settings.current.overrides);
  const remove = useApp((s) => s.removeOverride);
  const select = useApp((s) => s.select);
  if (overrides.length === 0) return null;
  return (
    <fieldset className="group">
      <legend>Overrides ({overrides.length})</legend>
      <ul className="override-list">
        {overrides.map((o) => (
          <li key={`${o.block.layer}:${o.block.group}`}>
            <button type="button" className="link" onClick={() => select(o.block)}>
              L{o.block.layer} · {o.block.group}
            </button>
            <span className="muted">{o.locked ? 'locked' : `S = ${formatNumber(o.gate ?? NaN)}`}</span>
            <button type="button" className="icon" aria-label={`Remove override of layer ${o.block.layer} ${o.block.group}`} onClick={() => remove(o.block)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
