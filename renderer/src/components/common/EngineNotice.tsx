/** Why a view has nothing to show: not built in this engine yet, not connected, or an error. */
import type { ErrorInfo } from '../../protocol.ts';

export function EngineNotice({ error, what }: { error: ErrorInfo | null; what: string }) {
  if (error === null) return null;
  if (error.code === 'not-implemented') {
    return (
      <div className="notice notice-pending" role="status">
        <strong>{what}: not available in this engine yet.</strong> <span className="muted">{error.message}</span>
      </div>
    );
  }
  if (error.code === 'cancelled') return <div className="notice" role="status">{what}: cancelled.</div>;
  return (
    <div className="notice notice-error" role="alert">
      <strong>{what} failed</strong> <code>{error.code}</code> {error.message}
    </div>
  );
}
