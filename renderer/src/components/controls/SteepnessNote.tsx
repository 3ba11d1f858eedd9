import { formatNumber } from '../../lib/format.ts';
import { defaultSteepness, followsTau } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';

export function SteepnessNote() {
  const tau = useApp((s) => s.settings.current.tau);
  const steepness = useApp((s) => s.settings.current.steepness);
  const update = useApp((s) => s.updateSettings);
  const follows = followsTau({ tau, steepness });
  return (
    <p className="small muted">
      {follows ? 'k follows 4.6/τ.' : `k = ${formatNumber(steepness)} (4.6/τ would be ${formatNumber(defaultSteepness(tau))}).`}{' '}
      {!follows && (
        <button type="button" className="link" onClick={() => update({ steepness: defaultSteepness(tau) })}>
          Reset k to 4.6/τ
        </button>
      )}
    </p>
  );
}
