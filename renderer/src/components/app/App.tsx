/** The studio: header with views, the settings sidebar, the active view, the export dialog. */
import { useEffect } from 'react';
import { useApp } from '../../store/app-context.tsx';
import { AnalysisView } from '../analysis/AnalysisView.tsx';
import { MethodComparison } from '../compare/MethodComparison.tsx';
import { ControlsPanel } from '../controls/ControlsPanel.tsx';
import { ExportDialog } from '../export/ExportDialog.tsx';
import { PairView } from '../pair/PairView.tsx';
import { SideBySideView } from '../side-by-side/SideBySideView.tsx';
import { TuneView } from '../tune/TuneView.tsx';
import { AppHeader } from './AppHeader.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { useGlobalShortcuts } from './use-global-shortcuts.ts';

export function App() {
  const view = useApp((s) => s.ui.view);
  const theme = useApp((s) => s.ui.theme);
  useGlobalShortcuts();
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return (
    <div className="app">
      <AppHeader />
      <ConnectionBanner />
      <div className="body">
        <ControlsPanel />
        <main className="main" id="main" tabIndex={-1} aria-label={view}>
          {view === 'pair' && <PairView />}
          {view === 'analysis' && <AnalysisView />}
          {view === 'tune' && <TuneView />}
          {view === 'side-by-side' && <SideBySideView />}
          {view === 'compare' && <MethodComparison />}
        </main>
      </div>
      <ExportDialog />
    </div>
  );
}
