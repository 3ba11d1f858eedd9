/** The heatmap with its metric switch, and what to do when there is nothing to draw yet. */
import { useActions, useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { GateHeatmap } from './GateHeatmap.tsx';
import { MetricSwitch } from './MetricSwitch.tsx';

export function HeatmapPanel() {
  const actions = useActions();
  const metric = useApp((s) => s.gates.metric);
  const setMetric = useApp((s) => s.setHeatmapMetric);
  const metrics = useApp((s) => s.gates.metrics);
  const retainedMissing = useApp((s) => s.gates.metric === 'retainedNorm' && s.preview.result === null);
  const setView = useApp((s) => s.setView);
  return (
    <section className="panel" aria-labelledby="heatmap-title">
      <header className="panel-header">
        <h2 id="heatmap-title">Gate heatmap</h2>
        <MetricSwitch value={metric} onChange={setMetric} />
      </header>
      <EngineNotice error={metrics.error} what="Gate metrics" />
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
      ) : (
        <>
          {retainedMissing && <p className="notice">Retained norm comes from the preview, which has not answered yet.</p>}
          <GateHeatmap />
        </>
      )}
    </section>
  );
}
