import { describe, expect, it, vi } from 'vitest';
import type { SyntheticEngine } from '../engine-link/synthetic/synthetic-engine.ts';
import { analyzedEngine } from '../testing/render-with-store.tsx';
import { createAppStore } from './app-store.ts';
import { bindAutosave } from './autosave.ts';
import { EngineActions } from './engine-actions.ts';
import { bindReactions } from './reactions.ts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DELAY_MS = 20;

/** A page: its store, actions and autosave on `engine` (a reload is a second page on the same engine). */
function page(engine: SyntheticEngine) {
  const store = createAppStore();
  const actions = new EngineActions(store);
  actions.attach(engine);
  bindReactions(store, actions);
  bindAutosave(store, () => actions.saveProject(), DELAY_MS);
  return { store, actions, s: () => store.getState() };
}

/**
 * Waits until the page's autosave has written (polling, not a fixed pause: on a loaded machine a
 * save can take longer than a few debounce periods).
 */
async function savedEventually(p: ReturnType<typeof page>): Promise<void> {
  await vi.waitFor(() => expect(p.s().project.save.status).toBe('saved'), { timeout: 10_000, interval: DELAY_MS });
}

describe('project autosave', () => {
  it('writes α, overrides and locks to the project after a pause, and a reload restores them', async () => {
    const engine = await analyzedEngine(3);
    const first = page(engine);
    await first.actions.openProject('/p');
    expect(first.s().project.save.status).toBe('saved');
    first.s().updateSettings({ alpha: 0.4 });
    first.s().setOverride({ layer: 1, group: 'attention' }, { gate: 0.2 });
    first.s().setOverride({ layer: 2, group: 'ffn' }, { locked: true });
    expect(first.s().project.save.status).toBe('unsaved');
    await savedEventually(first);
    expect(first.s().project.save).toMatchObject({ status: 'saved', error: null });
    expect(first.s().project.save.at).not.toBeNull();

    const reloaded = page(engine);
    await reloaded.actions.restoreProject();
    expect(reloaded.s().settings.current.alpha).toBe(0.4);
    expect(reloaded.s().settings.current.overrides).toEqual(first.s().settings.current.overrides);
    expect(reloaded.s().project.save.status).toBe('saved');
  });

  it('opening a project writes nothing back, and a change undone before the pause is saved, not written', async () => {
    const engine = await analyzedEngine(2);
    const p = page(engine);
    await p.actions.openProject('/p');
    const saved = p.s().project.save.savedKey;
    p.s().updateSettings({ alpha: 0.7 });
    p.s().undo();
    expect(p.s().project.save.status).toBe('saved');
    await wait(DELAY_MS * 5);
    expect(p.s().project.save.savedKey).toBe(saved);
    expect(p.s().project.save.at).toBeNull();
  });

  it('a late answer for the same project keeps what the page changed meanwhile', async () => {
    const engine = await analyzedEngine(2);
    const p = page(engine);
    await p.actions.openProject('/p');
    const calibration = (reasoning: string) => ({ ...p.s().analysis.settings, calibration: { reasoning, agent: '/d/a.jsonl', format: '/d/f.jsonl' } });
    p.s().setAnalysisSettings(calibration('/d/saved.jsonl'));
    await savedEventually(p);
    p.s().setAnalysisSettings(calibration('/d/typed.jsonl'));
    p.s().setPairPaths({ instructPath: '/m/i', thinkingPath: '/m/t' });
    await p.actions.openPair();
    expect(p.s().analysis.settings.calibration.reasoning).toBe('/d/typed.jsonl');
    await savedEventually(p);
    expect((await engine.call('getProjectState', {}))?.project.analysis?.calibration.reasoning).toBe('/d/typed.jsonl');
  });

  it('keeps every Verify result with the project, baselines too, each with its own settings', async () => {
    const engine = await analyzedEngine(2);
    const p = page(engine);
    await p.actions.openProject('/p');
    await p.actions.verify('ties');
    await p.actions.verify('crane');
    await savedEventually(p);
    const reloaded = page(engine);
    await reloaded.actions.restoreProject();
    expect(reloaded.s().verify.measured.map((r) => r.method.method)).toEqual(['ties', 'crane']);
  });
});
