/**
 * The experts view of the heatmap panel: the layer × expert map, a note where the chosen metric
 * has no data (an imported reference run has no router statistics), and the selected expert
 * opened side by side under CRANE and Task Arithmetic.
 */
import { useApp } from '../../store/app-context.tsx';
import { EXPERT_METRICS } from '../../store/experts-slice.ts';
import { expertMatrix, expertOfBlock } from './expert-data.ts';
import { ExpertHeatmap } from './ExpertHeatmap.tsx';

export function ExpertsPanelBody() {
  const metrics = useApp((s) => s.experts.metrics.result);
  const metric = useApp((s) => s.experts.metric);
  const description = EXPERT_METRICS.find((m) => m.id === metric)?.description ?? '';
  const selected = useApp((s) => s.selection.block);
  const setPane = useApp((s) => s.setPane);
  const setCompareMode = useApp((s) => s.setCompareMode);
  const setView = useApp((s) => s.setView);
  if (metrics === null) return null;
  const expert = selected !== null && expertOfBlock(selected.group) !== null ? selected : null;
  const openSideBySide = () => {
    if (expert === null) return;
    setCompareMode('methods');
    setPane(0, { block: expert, method: 'crane' });
    setView('side-by-side');
  };
  const sets = [metrics.routing.reasoning, metrics.routing.agent, metrics.routing.format];
  return (
    <>
      <p className="muted" data-testid="expert-summary">
        {metrics.layers} layers × {metrics.experts} experts
        {metrics.expertsPerToken > 0 ? `, top-${metrics.expertsPerToken} routing; tokens counted: D_R ${sets[0]?.tokens ?? 0}, D_A ${sets[1]?.tokens ?? 0}, D_F ${sets[2]?.tokens ?? 0}` : ''}
      </p>
      <p className="small muted" data-testid="expert-metric-description">{description}</p>
      {expertMatrix(metrics, metric) === null ? (
        <p className="notice">This analysis has no router statistics (an imported reference run measures none): run Analyze on the pair to see routing.</p>
      ) : (
        <ExpertHeatmap />
      )}
      <div className="button-row">
        <button type="button" disabled={expert === null} onClick={openSideBySide} title="Pane A: CRANE, pane B: another method, both on the selected expert">
          {expert === null ? 'Select an expert to compare it side by side' : `Compare layer ${expert.layer} · ${expert.group} side by side`}
        </button>
      </div>
    </>
  );
}
