import { useApp } from '../../store/app-context.tsx';
import { VIEWS } from '../../store/ui-slice.ts';
import { SaveMarker } from './SaveMarker.tsx';
import { ThemeToggle } from './ThemeToggle.tsx';

export function AppHeader() {
  const view = useApp((s) => s.ui.view);
  const setView = useApp((s) => s.setView);
  const connection = useApp((s) => s.connection);
  const openExport = useApp((s) => s.setExportOpen);
  return (
    <header className="app-header">
      <div className="brand">
        <strong>CRANE Studio</strong>
        <span className={`conn conn-${connection.status}`} title={connection.message ?? undefined}>
          ● {connection.label || 'engine'} · {connection.status}
        </span>
        <SaveMarker />
      </div>
      <nav className="tabs" aria-label="Views">
        {VIEWS.map((v) => (
          <button key={v.id} type="button" className={v.id === view ? 'tab active' : 'tab'} aria-current={v.id === view ? 'page' : undefined} onClick={() => setView(v.id)}>
            {v.label}
          </button>
        ))}
      </nav>
      <div className="button-row">
        <button type="button" className="primary" onClick={() => openExport(true)}>
          Export…
        </button>
        <ThemeToggle />
      </div>
    </header>
  );
}
