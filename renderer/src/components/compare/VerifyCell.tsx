import { formatSigned } from '../../lib/format.ts';
import type { VerifyEntry } from '../../store/preview-slice.ts';

export function VerifyCell({ entry, onVerify, label }: { entry: VerifyEntry | undefined; onVerify: () => void; label: string }) {
  if (entry?.status === 'loading') return <span className="muted">{Math.round(entry.fraction * 100)}%…</span>;
  const r = entry?.result;
  return (
    <span className="verify-cell">
      {r ? `${formatSigned(r.edited.reasoning - r.base.reasoning)} / ${formatSigned(r.edited.agent - r.base.agent)}` : <span className="muted">not measured</span>}{' '}
      <button type="button" className="small-button" onClick={onVerify} aria-label={`Verify ${label}`}>
        Verify
      </button>
    </span>
  );
}
