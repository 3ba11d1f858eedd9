/**
 * One method's measured ΔL_R / ΔL_A: the newest result at the method's current settings, else
 * the newest at other settings marked as such (with the settings hash it was measured at), and
 * the Verify button, or the progress with Cancel while it runs. `best`: which of its losses is the
 * lowest among the methods measured at the current settings (marked).
 */
import { formatSigned } from '../../lib/format.ts';
import { settingsKey, shortHash } from '../../lib/settings-key.ts';
import type { MergeMethodName } from '../../protocol.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { shownResult } from '../../store/measured-results.ts';

/** unavailable: why the method cannot run on this project (RAIN without a Base), shown instead of a result. */
export interface VerifyCellProps {
  method: MergeMethodName;
  label: string;
  busy: boolean;
  unavailable: string | null;
  best?: { reasoning: boolean; agent: boolean };
}

const NOT_BEST = { reasoning: false, agent: false };

export function VerifyCell({ method, label, busy, unavailable, best = NOT_BEST }: VerifyCellProps) {
  const actions = useActions();
  const job = useApp((s) => s.verify.jobs[method]);
  const result = useApp((s) => shownResult(s, method)?.result);
  const current = useApp((s) => shownResult(s, method)?.current ?? true);
  if (job?.status === 'running') {
    return (
      <span className="verify-cell" data-testid={`verify-${method}`}>
        <span className="muted">{Math.round(job.fraction * 100)}%…</span>{' '}
        <button type="button" className="small-button" onClick={() => actions.verifyJobs.cancel()} aria-label={`Cancel Verify ${label}`}>
          Cancel
        </button>
      </span>
    );
  }
  const r = result;
  if (unavailable !== null && r === undefined) {
    return (
      <span className="verify-cell" data-testid={`verify-${method}`}>
        <span className="muted">{unavailable}</span>{' '}
        <button type="button" className="small-button" disabled title={`${label} ${unavailable}: open the pair with one (Pair view)`} aria-label={`Verify ${label}`}>
          Verify
        </button>
      </span>
    );
  }
  return (
    <span className={current ? 'verify-cell' : 'verify-cell stale'} data-testid={`verify-${method}`}>
      {r ? `${formatSigned(r.edited.reasoning - r.base.reasoning)} / ${formatSigned(r.edited.agent - r.base.agent)}` : <span className="muted">not measured</span>}
      {best.reasoning && <span className="badge best" title="lowest measured ΔL_R among the methods at their current settings">best ΔL_R</span>}
      {best.agent && <span className="badge best" title="lowest measured ΔL_A among the methods at their current settings">best ΔL_A</span>}
      {r !== undefined && !current && (
        <span className="stale-mark" title={`measured at settings #${shortHash(settingsKey(r.method))}, not the ones set now`}>
          {' '}from other settings
        </span>
      )}
      {job?.status === 'cancelled' && <span className="muted"> (last run cancelled)</span>}{' '}
      <button type="button" className="small-button" onClick={() => void actions.verify(method)} disabled={busy || unavailable !== null} aria-label={`Verify ${label}`}>
        Verify
      </button>
    </span>
  );
}
