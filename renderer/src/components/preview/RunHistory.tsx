/**
 * The run history, like an experiment tracker: every Verify of the project (CRANE and the
 * baselines), newest first, with the exact settings it measured (a line, the full settings on
 * hover, the hash the other views print), the preview's prediction for them, the measured ΔL and
 * when it ended. Runs at the settings on screen now are marked "current".
 */
import { useMemo } from 'react';
import { formatSigned } from '../../lib/format.ts';
import { METHOD_NAMES } from '../../lib/merge-methods.ts';
import { settingsKey } from '../../lib/settings-key.ts';
import { useApp } from '../../store/app-context.tsx';
import { methodOf } from '../../store/methods-slice.ts';
import { formatRunTime, runRows, type LossPair } from './run-history.ts';

export function RunHistory() {
  const measured = useApp((s) => s.verify.measured);
  const settings = useApp((s) => s.settings);
  const methodParameters = useApp((s) => s.methodParameters);
  const rows = useMemo(() => {
    const keys = Object.fromEntries(METHOD_NAMES.map((name) => [name, settingsKey(methodOf({ settings, methodParameters }, name))]));
    return runRows(measured, keys);
  }, [measured, settings, methodParameters]);
  if (rows.length === 0) return <p className="small muted" data-testid="run-history-empty">No runs yet: Verify measures the edit and adds it here.</p>;
  return (
    <div className="run-history" data-testid="run-history">
      <table className="table run-table">
        <caption className="small muted">Run history ({rows.length}) · ΔL = edited − θ_I, measured on the evaluation set</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Method</th>
            <th scope="col">Settings</th>
            <th scope="col">Predicted ΔL_R / ΔL_A</th>
            <th scope="col">Measured ΔL_R / ΔL_A</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-testid="run-row" data-current={row.current} className={row.current ? 'current-run' : undefined}>
              <td className="nowrap">{formatRunTime(row.finishedAt)}</td>
              <td>{row.method}</td>
              <td className="small" title={row.settingsJson}>
                {row.settings} <span className="muted">#{row.hash}</span>
                {row.current && <span className="badge">current</span>}
              </td>
              <td className="num">{pair(row.predicted)}</td>
              <td className="num">{pair(row.measured)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const pair = (p: LossPair | null) => (p === null ? '—' : `${formatSigned(p.reasoning)} / ${formatSigned(p.agent)}`);
