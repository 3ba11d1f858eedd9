/** Open an Instruct/Thinking pair and see whether CRANE can edit it. */
import type { FormEvent } from 'react';
import { checkPath } from '../../lib/path-check.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { CompatibilityReport } from './CompatibilityReport.tsx';
import { PathField } from './PathField.tsx';

export function PairPanel() {
  const actions = useActions();
  const pair = useApp((s) => s.pair);
  const setPaths = useApp((s) => s.setPairPaths);
  // The Base is optional: empty, or a path like the other two.
  const valid = checkPath(pair.instructPath).ok && checkPath(pair.thinkingPath).ok && (pair.basePath.trim() === '' || checkPath(pair.basePath).ok);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid) void actions.openPair();
  };
  return (
    <section className="panel" aria-labelledby="pair-title">
      <h2 id="pair-title">Checkpoint pair</h2>
      <form onSubmit={submit} className="form">
        <PathField label="Instruct checkpoint (θ_I, edited)" purpose="instruct" value={pair.instructPath} onChange={(instructPath) => setPaths({ instructPath })} />
        <PathField label="Thinking checkpoint (θ_T)" purpose="thinking" value={pair.thinkingPath} onChange={(thinkingPath) => setPaths({ thinkingPath })} />
        <PathField
          label="Base checkpoint (optional: RAIN merges Thinking + α·proj(Instruct − Base))"
          purpose="base"
          placeholder="none"
          optional
          value={pair.basePath}
          onChange={(basePath) => setPaths({ basePath })}
        />
        <div className="button-row">
          <button type="submit" className="primary" disabled={!valid || pair.summary.status === 'loading'}>
            {pair.summary.status === 'loading' ? 'Opening…' : 'Open pair'}
          </button>
        </div>
      </form>
      <EngineNotice error={pair.summary.error} what="Open pair" />
      {/* Only the answer for the paths just opened: never a previous pair's report under a new error or while opening. */}
      {pair.summary.status === 'ready' && pair.summary.result !== null && <CompatibilityReport summary={pair.summary.result} />}
    </section>
  );
}
