/**
 * Store changes that call the engine, wired once outside React: settings → preview, granularity →
 * gate metrics, selection or τ/k → spectrum, side-by-side panes → inspectLayer (and, for a looped
 * model, getBlockPasses); pane A and the heatmap selection kept one (pane-selection.ts).
 */
import type { AppState, AppStore } from './app-store.ts';
import type { EngineActions } from './engine-actions.ts';
import { syncPaneWithSelection } from './pane-selection.ts';

export function bindReactions(store: AppStore, actions: EngineActions): () => void {
  return store.subscribe((s: AppState, prev: AppState) => {
    const settings = s.settings.current;
    const before = prev.settings.current;
    if (settings !== before) {
      if (settings.granularity !== before.granularity) void actions.loadGateMetrics();
      else if (s.gates.metrics.result !== null) actions.requestPreview();
    }
    const spectrumInputsChanged =
      s.selection !== prev.selection || settings.tau !== before.tau || settings.steepness !== before.steepness;
    if (spectrumInputsChanged && s.selection.block !== null) actions.requestSpectrum();
    const [a, b] = s.sideBySide.panes;
    if (s.ui.view === 'side-by-side') {
      const entering = prev.ui.view !== 'side-by-side';
      // A looped model's per-pass contributions also wait for getPassMetrics to say there is a loop.
      const loopKnown = s.passes.metrics.result !== prev.passes.metrics.result;
      if (entering || a !== prev.sideBySide.panes[0]) void actions.inspectPane(0);
      if (entering || b !== prev.sideBySide.panes[1]) void actions.inspectPane(1);
      if (entering || loopKnown || a !== prev.sideBySide.panes[0]) void actions.inspectPanePasses(0);
      if (entering || loopKnown || b !== prev.sideBySide.panes[1]) void actions.inspectPanePasses(1);
    }
    syncPaneWithSelection(s, prev);
  });
}
