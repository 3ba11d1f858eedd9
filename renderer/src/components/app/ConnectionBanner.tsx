/** Says plainly when there is no engine (and that the page reconnects by itself), or when the data on screen is synthetic. */
import { useApp } from '../../store/app-context.tsx';

export function ConnectionBanner() {
  const connection = useApp((s) => s.connection);
  const reconnectNow = useApp((s) => s.reconnectNow);
  const unavailable = useApp((s) => Object.keys(s.unavailable).length);
  if (connection.status === 'reconnecting') {
    const next = connection.retryInMs === null ? 'now' : `in ${Math.max(1, Math.round(connection.retryInMs / 1000))} s`;
    return (
      <div className="banner banner-error" role="alert">
        No engine connection: {connection.message ?? 'the connection closed'}. Reconnecting by itself (next attempt {next}); your project and
        settings stay as they are.{' '}
        <button type="button" onClick={reconnectNow}>
          Retry now
        </button>
      </div>
    );
  }
  if (connection.synthetic) {
    return (
      <div className="banner banner-synthetic" role="status">
        Synthetic engine: every number on screen is generated in the page, not computed from checkpoints.
      </div>
    );
  }
  if (unavailable > 0) {
    return (
      <div className="banner" role="status">
        {unavailable} engine method{unavailable === 1 ? ' is' : 's are'} not built yet; the views that need them say so.
      </div>
    );
  }
  return null;
}
