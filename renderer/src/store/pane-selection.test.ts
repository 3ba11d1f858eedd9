import { describe, expect, it } from 'vitest';
import { createAppStore } from './app-store.ts';
import { syncPaneWithSelection } from './pane-selection.ts';

function syncedStore() {
  const store = createAppStore();
  store.subscribe((s, prev) => syncPaneWithSelection(s, prev));
  return store;
}

describe('pane A and the heatmap selection', () => {
  it('a heatmap selection shows in pane A, and a block picked in pane A is selected in the heatmap', () => {
    const store = syncedStore();
    store.getState().select({ layer: 3, group: 'ffn' });
    expect(store.getState().sideBySide.panes[0].block).toEqual({ layer: 3, group: 'ffn' });
    store.getState().setPane(0, { block: { layer: 2, group: 'attention' } });
    expect(store.getState().selection.block).toEqual({ layer: 2, group: 'attention' });
    expect(store.getState().selection.activationKey).toBe('attn_input');
  });

  it('leaves pane B, pane A’s method and a cleared selection alone', () => {
    const store = syncedStore();
    store.getState().select({ layer: 1, group: 'ffn' });
    store.getState().setPane(1, { block: { layer: 5, group: 'norm' } });
    expect(store.getState().selection.block).toEqual({ layer: 1, group: 'ffn' });
    store.getState().setPane(0, { method: 'ties' });
    expect(store.getState().selection.block).toEqual({ layer: 1, group: 'ffn' });
    store.getState().select(null);
    expect(store.getState().sideBySide.panes[0]).toEqual({ block: { layer: 1, group: 'ffn' }, method: 'ties' });
  });
});
