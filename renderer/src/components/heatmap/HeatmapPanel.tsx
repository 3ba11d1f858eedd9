/** The heatmap with its metric switch, the blocks/experts view switch of an MoE analysis, and what to do when there is nothing to draw yet. */
import { useActions, useApp } from '../../store/app-context.tsx';
import { EXPERT_METRICS, type ExpertMetric, type HeatmapView } from '../../store/experts-slice.ts';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { SegmentedRadio } from '../common/SegmentedRadio.tsx';
import { ExpertsPanelBody } from './ExpertsPanelBody.tsx';
import { GateHeatmap } from './GateHeatmap.tsx';
import { MetricSwitch } from './MetricSwitch.tsx';
import { PassSwitch } from './PassSwitch.tsx';

const VIEWS = [
  { value: 'blocks', label: 'Layer × block' },
  { value: 'experts', label: 'Layer × expert' },
] as const;

export function HeatmapPanel() {
  const actions = useActions();
  const metric = useApp((s) => s.gates.metric);
  const setMetric = useApp((s) => s.setHeatmapMetric);
  const metrics = useApp((s) => s.gates.metrics);
  const retainedMissing = useApp((s) => s.gates.metric === 'retainedNorm' && s.preview.result === null);
  const hasExperts = useApp((s) => s.experts.metrics.result !== null);
  const view = useApp((s) => s.experts.view);
  const setHeatmapView = useApp((s) => s.setHeatmapView);
  const expertMetric = useApp((s) => s.experts.metric);
  const setExpertMetric = useApp((s) => s.setExpertMetric);
  const setView = useApp((s) => s.setView);
  const expertsError = useApp((s) => s.experts.metrics.error);
  const experts = hasExperts && view === 'experts';
  return (
    <section className="panel" aria-labelledby="heatmap-title">
      <header className="panel-header">
        <h2 id="heatmap-title">{experts ? 'Expert heatmap' : 'Gate heatmap'}</h2>
        {hasExperts && <SegmentedRadio<HeatmapView> label="Heatmap rows" name="heatmap-view" options={VIEWS} value={view} onChange={setHeatmapView} />}
        {experts ? (
          <label className="inline-field">
            Metric{' '}
            <select aria-label="Expert metric" value={expertMetric} onChange={(e) => setExpertMetric(e.currentTarget.value as ExpertMetric)}>
              {EXPERT_METRICS.map((m) => (
                <option key={m.id} value={m.id} title={m.description}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <>
            <MetricSwitch value={metric} onChange={setMetric} />
            <PassSwitch />
          </>
        )}
      </header>
      <EngineNotice error={metrics.error} what="Gate metrics" />
      <EngineNotice error={expertsError} what="Expert metrics" />
      {metrics.result === null ? (
        <div className="empty">
          <p className="muted">{metrics.status === 'loading' ? 'Loading gate metrics…' : 'No gate metrics yet: run the analysis first.'}</p>
          <div className="button-row">
            <button type="button" onClick={() => setView('analysis')}>
              Go to Analysis
            </button>
            <button type="button" onClick={() => void actions.loadGateMetrics()}>
              Load cached metrics
            </button>
          </div>
        </div>
      ) : experts ? (
        <ExpertsPanelBody />
      ) : (
        <>
          {retainedMissing && <p className="notice">Retained norm comes from the preview, which has not answered yet.</p>}
          <GateHeatmap />
        </>
      )}
    </section>
  );
}
