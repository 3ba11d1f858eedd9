import { describe, expect, it } from 'vitest';
import { analyzedEngine } from '../testing/render-with-store.tsx';
import { createAppStore } from './app-store.ts';
import { EngineActions } from './engine-actions.ts';
import { previewIsStale, shownResult } from './measured-results.ts';
import { bindReactions } from './reactions.ts';
import { idle, ready } from './slice.ts';

const settle = () => new Promise((r) => setTimeout(r, 5));

async function analysedPage() {
  const store = createAppStore();
  const actions = new EngineActions(store);
  actions.attach(await analyzedEngine(2));
  bindReactions(store, actions);
  await actions.loadGateMetrics();
  await settle();
  return { store, actions, s: () => store.getState() };
}

describe('results carry the settings they were computed for', () => {
  it('a Verify whose settings moved while it ran is shown as from other settings, with its own α', async () => {
    const { actions, s } = await analysedPage();
    s().updateSettings({ alpha: 0.25 });
    const run = actions.verify('crane');
    s().updateSettings({ alpha: 0.5 });
    await run;
    const shown = shownResult(s(), 'crane');
    expect(shown?.current).toBe(false);
    expect(shown?.result.method).toMatchObject({ method: 'crane', settings: { alpha: 0.25 } });
    s().updateSettings({ alpha: 0.25 });
    expect(shownResult(s(), 'crane')?.current).toBe(true);
  });

  it('a preview whose request failed is stale until a preview for the current settings arrives', async () => {
    const { actions, s } = await analysedPage();
    expect(previewIsStale(s())).toBe(false);
    actions.attach(null);
    s().updateSettings({ alpha: 0.9 });
    s().setPreview({ ...s().preview, status: 'error', error: { code: 'disconnected', message: 'not connected to an engine' } });
    expect(previewIsStale(s())).toBe(true);
    actions.attach(await analyzedEngine(2));
    actions.requestPreview();
    await settle();
    expect(previewIsStale(s())).toBe(false);
  });

  it('opening another project drops the previous one’s heatmap, preview and measured points', async () => {
    const { actions, s } = await analysedPage();
    await actions.openProject('/p');
    await actions.verify('crane');
    await settle();
    expect(s().gates.metrics.result).not.toBeNull();
    await actions.openProject('/q');
    expect(s().gates.metrics.result).toBeNull();
    expect(s().preview.result).toBeNull();
    expect(s().verify.measured).toEqual([]);
  });

  it('opening another project drops the previous one’s per-pass pane contributions', async () => {
    const { actions, s } = await analysedPage();
    await actions.openProject('/p');
    s().setPanePasses(0, ready({ block: { layer: 0, group: 'ffn' }, passes: 2, tensors: [] }));
    await actions.openProject('/q');
    expect(s().sideBySide.passes[0]).toEqual(idle());
  });

  it('Verify can be cancelled, alone or as Verify all, and leaves no running state behind', async () => {
    const { store, actions, s } = await analysedPage();
    const { SyntheticEngine } = await import('../engine-link/synthetic/synthetic-engine.ts');
    const slow = new SyntheticEngine({ layers: 2, experts: 0 }, 5);
    await slow.call('analyze', { projectDir: '/p', settings: s().analysis.settings });
    actions.attach(slow);
    const all = actions.verifyJobs.verifyAll();
    await new Promise((r) => setTimeout(r, 12));
    actions.verifyJobs.cancel();
    await all;
    const jobs = Object.values(store.getState().verify.jobs);
    expect(jobs.some((j) => j?.status === 'running')).toBe(false);
    expect(jobs.filter((j) => j?.status === 'cancelled')).toHaveLength(1);
    expect(s().verify.measured).toEqual([]);
  });
});
