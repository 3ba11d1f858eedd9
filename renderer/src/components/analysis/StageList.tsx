import { formatSeconds } from '../../lib/format.ts';
import { ANALYSIS_STAGES, type AnalysisStage } from '../../protocol.ts';
import type { StageView } from '../../store/analysis-slice.ts';
import { ProgressBar } from '../common/ProgressBar.tsx';

const LABELS: Record<AnalysisStage, string> = {
  targets: 'Calibration targets (greedy decode)',
  projectors: 'GSP projectors (format activations, SVD)',
  gradients: 'Gradients g_R, g_A at θ_I',
  gates: 'Gate sums, δ statistics and preview coefficients',
  curvature: 'Preview curvature and measured anchors',
};

const STATE_TEXT: Record<StageView['state'], string> = { missing: 'not run', cached: 'cached', stale: 'stale', running: 'running', done: 'done' };

export function StageList({ stages }: { stages: Record<AnalysisStage, StageView> }) {
  return (
    <ol className="stages">
      {ANALYSIS_STAGES.map((stage) => {
        const view = stages[stage];
        return (
          <li key={stage} className={`stage ${view.state}`} data-testid={`stage-${stage}`}>
            <div className="stage-head">
              <span>{LABELS[stage]}</span>
              <span className={`badge ${view.state}`}>{STATE_TEXT[view.state]}</span>
            </div>
            <ProgressBar fraction={view.fraction} label={`${LABELS[stage]} progress`} />
            <div className="small muted">
              {view.state === 'running' && `${Math.round(view.fraction * 100)}% · ETA ${formatSeconds(view.etaSeconds)}`}
              {view.seconds !== null && view.state !== 'running' && `took ${formatSeconds(view.seconds)}`}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
