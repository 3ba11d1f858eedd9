import { describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS } from '../protocol.ts';
import { createAppStore } from './app-store.ts';
import { findOverride } from './settings-slice.ts';

describe('settings slice', () => {
  it('undoes and redoes changes in order, and a new change clears redo', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().updateSettings({ alpha: 0.3 });
    s().updateSettings({ keepQuantile: 0.7 });
    expect(s().settings.current).toMatchObject({ alpha: 0.3, keepQuantile: 0.7 });
    s().undo();
    expect(s().settings.current).toMatchObject({ alpha: 0.3, keepQuantile: 0.5 });
    s().undo();
    expect(s().settings.current).toEqual(DEFAULT_CRANE_SETTINGS);
    s().undo();
    expect(s().settings.current).toEqual(DEFAULT_CRANE_SETTINGS);
    s().redo();
    expect(s().settings.current.alpha).toBe(0.3);
    s().updateSettings({ tau: 0.05 });
    expect(s().settings.future).toEqual([]);
  });

  it('coalesces one slider drag into one undo step', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().updateSettings({ alpha: 0.1 }, { coalesce: 'alpha', now: 1000 });
    s().updateSettings({ alpha: 0.2 }, { coalesce: 'alpha', now: 1100 });
    s().updateSettings({ alpha: 0.3 }, { coalesce: 'alpha', now: 1200 });
    expect(s().settings.past).toHaveLength(1);
    s().updateSettings({ alpha: 0.4 }, { coalesce: 'alpha', now: 5000 });
    expect(s().settings.past).toHaveLength(2);
    s().undo();
    expect(s().settings.current.alpha).toBe(0.3);
    s().undo();
    expect(s().settings.current.alpha).toBe(DEFAULT_CRANE_SETTINGS.alpha);
  });

  it('applies the paper presets (α 0.25 at 30B, 0.15 at 80B) and keeps overrides', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().setOverride({ layer: 2, group: 'attention' }, { locked: true });
    s().updateSettings({ alpha: 0.9, tau: 0.2, stages: { threshold: false, gate: false, gsp: false } });
    s().applyPreset('paper-80b');
    expect(s().settings.current).toMatchObject({ alpha: 0.15, keepQuantile: 0.5, tau: 0.03, stages: { threshold: true, gate: true, gsp: true } });
    expect(s().settings.current.steepness).toBeCloseTo(4.6 / 0.03, 9);
    expect(s().settings.current.overrides).toHaveLength(1);
    s().applyPreset('paper-30b');
    expect(s().settings.current.alpha).toBe(0.25);
    s().undo();
    expect(s().settings.current.alpha).toBe(0.15);
  });

  it('sets, merges and removes per-block overrides', () => {
    const store = createAppStore();
    const s = () => store.getState();
    const block = { layer: 1, group: 'ffn' };
    s().setOverride(block, { gate: 0.5 });
    s().setOverride(block, { locked: true });
    expect(findOverride(s().settings.current, block)).toEqual({ block, gate: 0.5, locked: true });
    s().setOverride(block, { gate: null, locked: false });
    expect(s().settings.current.overrides).toEqual([]);
    s().setOverride(block, { locked: true });
    s().removeOverride(block);
    expect(s().settings.current.overrides).toEqual([]);
    s().undo();
    expect(findOverride(s().settings.current, block)?.locked).toBe(true);
  });

  it('resets history when a project loads its settings', () => {
    const store = createAppStore();
    store.getState().updateSettings({ alpha: 0.4 });
    store.getState().resetSettings({ ...DEFAULT_CRANE_SETTINGS, alpha: 0.15 });
    expect(store.getState().settings).toMatchObject({ past: [], future: [], current: { alpha: 0.15 } });
  });
});
