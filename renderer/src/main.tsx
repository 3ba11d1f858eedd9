/** Renderer entry: store, engine connection, theme, latency recorder, then React. */
import './zod-csp.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/app/App.tsx';
import { chooseConnector } from './engine-link/choose-connector.ts';
import { installLatencyRecorder } from './lib/latency.ts';
import { AppProvider } from './store/app-context.tsx';
import { createAppStore } from './store/app-store.ts';
import { EngineActions } from './store/engine-actions.ts';
import { startStudio } from './start-studio.ts';
import type { Theme } from './store/ui-slice.ts';
import './styles.css';

function initialTheme(): Theme {
  const query = new URLSearchParams(window.location.search).get('theme');
  if (query === 'light' || query === 'dark') return query;
  try {
    const saved = localStorage.getItem('crane.theme');
    if (saved === 'light' || saved === 'dark') return saved;
  } catch {
    // No storage: fall through to the system preference.
  }
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

const store = createAppStore();
store.getState().setTheme(initialTheme());
document.documentElement.dataset.theme = store.getState().ui.theme;
installLatencyRecorder();

const actions = new EngineActions(store);
createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <AppProvider store={store} actions={actions}>
      <App />
    </AppProvider>
  </StrictMode>,
);
startStudio(store, chooseConnector(), actions);
