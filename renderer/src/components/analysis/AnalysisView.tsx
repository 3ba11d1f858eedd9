/**
 * Run the analysis: calibration sets, each stage's progress and cache state, cancel, logs; or open a reference run's.
 * On a pair the studio has no runtime for (Qwen3-Next), Analyze is off and the reference run is the way in.
 */
import { referenceOnlyNote } from '../../protocol.ts';
import { checkPath } from '../../lib/path-check.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { CalibrationFields } from './CalibrationFields.tsx';
import { LogView } from './LogView.tsx';
import { ReferenceRunFields } from './ReferenceRunFields.tsx';
import { StageList } from './StageList.tsx';

export function AnalysisView() {
  const actions = useActions();
  const analysis = useApp((s) => s.analysis);
  const projectDir = useApp((s) => s.project.dir);
  const running = analysis.status === 'running';
  const architectures = useApp((s) => s.pair.summary.result?.instruct.architectures);
  const referenceOnly = referenceOnlyNote(architectures ?? []);
  const canRun = checkPath(projectDir).ok && referenceOnly === null;
  return (
    <div className="two-col wide-left">
      <section className="panel" aria-labelledby="analysis-title">
        <header className="panel-header">
          <h2 id="analysis-title">Analysis</h2>
          <div className="button-row">
            {running ? (
              <button type="button" onClick={() => actions.cancelAnalysis()}>
                Cancel
              </button>
            ) : (
              <button type="button" className="primary" disabled={!canRun} onClick={() => void actions.analyze()}>
                Analyze
              </button>
            )}
          </div>
        </header>
        {referenceOnly !== null && (
          <p className="small" data-testid="reference-only-note">
            {referenceOnly}
          </p>
        )}
        {!checkPath(projectDir).ok && <p className="small muted">Set a project folder (Pair & project) — the analysis cache lives there.</p>}
        <p className="small muted">Cached stages are reused; stale ones (other inputs or settings) run again. A cancelled run resumes.</p>
        <EngineNotice error={analysis.error} what="Analysis" />
        <StageList stages={analysis.stages} />
        <CalibrationFields />
        <ReferenceRunFields />
      </section>
      <LogView logs={analysis.logs} />
    </div>
  );
}
