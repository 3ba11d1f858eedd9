/** Test helper: a fresh store (and actions, optionally on the synthetic engine) around a component. */
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import type { EngineApi } from '../engine-link/engine-api.ts';
import { SyntheticEngine } from '../engine-link/synthetic/synthetic-engine.ts';
import { AppProvider } from '../store/app-context.tsx';
import { createAppStore } from '../store/app-store.ts';
import { EngineActions } from '../store/engine-actions.ts';
import { bindEngineEvents } from '../store/engine-events.ts';

export function renderWithStore(ui: ReactElement, api: EngineApi | null = null) {
  const store = createAppStore();
  const actions = new EngineActions(store);
  if (api !== null) {
    actions.attach(api);
    bindEngineEvents(api, store, actions);
  }
  const result = render(
    <AppProvider store={store} actions={actions}>
      {ui}
    </AppProvider>,
  );
  return { ...result, store, actions };
}

/** A synthetic engine that has already "analyzed", with no delays. */
export async function analyzedEngine(layers = 4, experts = 0): Promise<SyntheticEngine> {
  const engine = new SyntheticEngine({ layers, experts }, 0);
  await engine.call('analyze', {
    projectDir: '/p',
    settings: {
      calibration: { reasoning: '/r', agent: '/a', format: '/f' },
      reasoningMaxNewTokens: 1,
      agentMaxNewTokens: 1,
      evaluation: { source: 'held-out', fraction: 0.2 },
      gsp: { maxRank: 8, rankCut: 1e-5, radius: 3, maxTokens: 8, formatPatterns: ['<x>'] },
    },
  });
  return engine;
}
