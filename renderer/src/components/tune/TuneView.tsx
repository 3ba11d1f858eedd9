/** Tuning: the gate heatmap on top, the live preview and the selected layer's projection below. */
import { ProjectionView } from '../projection/ProjectionView.tsx';
import { PreviewPanel } from '../preview/PreviewPanel.tsx';
import { HeatmapPanel } from '../heatmap/HeatmapPanel.tsx';

export function TuneView() {
  return (
    <div className="tune">
      <HeatmapPanel />
      <div className="two-col">
        <PreviewPanel />
        <ProjectionView />
      </div>
    </div>
  );
}
