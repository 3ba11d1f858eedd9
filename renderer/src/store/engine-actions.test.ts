import { describe, expect, it } from 'vitest';
import type { EngineApi } from '../engine-link/engine-api.ts';
import { ProtocolError } from '../protocol.ts';
import { analyzedEngine } from '../testing/render-with-store.tsx';
import { createAppStore } from './app-store.ts';
import { EngineActions, previewAlphas } from './engine-actions.ts';
import { bindEngineEvents } from './engine-events.ts';
import { bindReactions } from './reactions.ts';

const settle = () => new Promise((r) => setTimeout(r, 5));

function notImplementedEngine(): EngineApi {
  return {
    call: (method) => Promise.reject(new ProtocolError('not-implemented', `${method}: not built yet`)),
    on: () => () => undefined,
    onClose: () => () => undefined,
  };
}

describe('engine actions and events', () => {
  it('records not-implemented methods and keeps the error on the view’s slice', async () => {
    const store = createAppStore();
    const actions = new EngineActions(store);
    actions.attach(notImplementedEngine());
    await actions.loadGateMetrics();
    expect(store.getState().gates.metrics).toMatchObject({ status: 'error', error: { code: 'not-implemented' } });
    expect(store.getState().unavailable.getGateMetrics).toContain('not built yet');
  });

  it('says disconnected when no engine is attached', async () => {
    const store = createAppStore();
    await new EngineActions(store).openPair();
    expect(store.getState().pair.summary.error?.code).toBe('disconnected');
  });

  it('runs the analysis with progress events, then loads metrics and the preview', async () => {
    const store = createAppStore();
    const actions = new EngineActions(store);
    const engine = await analyzedEngine(6);
    actions.attach(engine);
    bindEngineEvents(engine, store, actions);
    bindReactions(store, actions);
    store.getState().setProjectDir('/p');
    await actions.analyze();
    const s = store.getState();
    expect(s.analysis.status).toBe('done');
    expect(s.analysis.stages.gates.state).toBe('done');
    expect(s.analysis.logs.length).toBeGreaterThan(0);
    expect(s.gates.metrics.result?.layers).toBe(6);
    await settle();
    expect(store.getState().preview.status).toBe('ready');
    const before = store.getState().preview.result?.deltaLossReasoning;
    store.getState().updateSettings({ alpha: 0.6 });
    await settle();
    expect(store.getState().preview.result?.deltaLossReasoning).not.toBe(before);
  });

  it('cancels a running analysis', async () => {
    const store = createAppStore();
    const actions = new EngineActions(store);
    const { SyntheticEngine } = await import('../engine-link/synthetic/synthetic-engine.ts');
    actions.attach(new SyntheticEngine({ layers: 2, experts: 0 }, 5));
    const run = actions.analyze();
    await new Promise((r) => setTimeout(r, 12));
    actions.cancelAnalysis();
    await run;
    expect(store.getState().analysis.status).toBe('cancelled');
  });

  it('asks for a pane\'s per-pass contributions only once getPassMetrics says there is a loop', async () => {
    const calls: { method: string; params: unknown }[] = [];
    const answer = { block: { layer: 2, group: 'ffn' }, passes: 2, tensors: [] };
    const engine: EngineApi = {
      call: (method, params) => {
        calls.push({ method, params });
        return Promise.resolve(answer) as never;
      },
      on: () => () => undefined,
      onClose: () => () => undefined,
    };
    const store = createAppStore();
    const actions = new EngineActions(store);
    actions.attach(engine);
    store.getState().setPane(0, { block: { layer: 2, group: 'ffn' }, method: 'task_arithmetic' });
    await actions.inspectPanePasses(0);
    expect(calls).toEqual([]);
    expect(store.getState().sideBySide.passes[0].status).toBe('idle');
    store.getState().setPassMetrics({ status: 'ready', result: { passes: 2, layers: 4, blocks: [], spectra: [] }, error: null });
    await actions.inspectPanePasses(0);
    expect(calls.map((c) => c.method)).toEqual(['getBlockPasses']);
    expect(calls[0]?.params).toMatchObject({ block: { layer: 2, group: 'ffn' }, method: { method: 'task_arithmetic' } });
    expect(store.getState().sideBySide.passes[0].result).toEqual(answer);
  });

  it('sweeps α over 0..1, wider when α is large', () => {
    expect(previewAlphas(0.25, 5)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(previewAlphas(1.5, 3)).toEqual([0, 1.5, 3]);
  });
});
