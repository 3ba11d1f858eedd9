/**
 * Side-by-side inspection: two panes, each a block under a method (two blocks, or one block across
 * methods). A looped model's panes also hold the block's per-pass contributions (getBlockPasses).
 */
import type { Block, LayerView, MergeMethodName, Result } from '../protocol.ts';
import { idle, type Loadable, type SliceCreator } from './slice.ts';

export type BlockPasses = NonNullable<Result<'getBlockPasses'>>;

export type CompareMode = 'blocks' | 'methods';
export type PaneIndex = 0 | 1;

export interface PaneSpec {
  readonly block: Block;
  readonly method: MergeMethodName;
}

export interface SideBySideSlice {
  sideBySide: {
    mode: CompareMode;
    panes: [PaneSpec, PaneSpec];
    views: [Loadable<LayerView>, Loadable<LayerView>];
    /** Idle for a model without a loop. */
    passes: [Loadable<BlockPasses | null>, Loadable<BlockPasses | null>];
  };
  setCompareMode(mode: CompareMode): void;
  setPane(index: PaneIndex, patch: Partial<PaneSpec>): void;
  setPaneView(index: PaneIndex, view: Loadable<LayerView>): void;
  setPanePasses(index: PaneIndex, passes: Loadable<BlockPasses | null>): void;
}

const firstBlock: Block = { layer: 0, group: 'attention' };

export const createSideBySideSlice: SliceCreator<SideBySideSlice> = (set) => ({
  sideBySide: {
    mode: 'blocks',
    panes: [
      { block: firstBlock, method: 'crane' },
      { block: { layer: 1, group: 'attention' }, method: 'crane' },
    ],
    views: [idle(), idle()],
    passes: [idle(), idle()],
  },
  setCompareMode: (mode) =>
    set((s) => {
      const [a, b] = s.sideBySide.panes;
      // "methods": both panes show pane A's block; "blocks": both use pane A's method.
      const panes: [PaneSpec, PaneSpec] =
        mode === 'methods'
          ? [a, { block: a.block, method: b.method === a.method ? 'task_arithmetic' : b.method }]
          : [a, { block: b.block, method: a.method }];
      return { sideBySide: { ...s.sideBySide, mode, panes } };
    }),
  setPane: (index, patch) =>
    set((s) => {
      const panes = [...s.sideBySide.panes] as [PaneSpec, PaneSpec];
      panes[index] = { ...panes[index], ...patch };
      // The mode's shared part follows pane A.
      if (index === 0 && s.sideBySide.mode === 'methods' && patch.block) panes[1] = { ...panes[1], block: patch.block };
      if (index === 0 && s.sideBySide.mode === 'blocks' && patch.method) panes[1] = { ...panes[1], method: patch.method };
      return { sideBySide: { ...s.sideBySide, panes } };
    }),
  setPaneView: (index, view) =>
    set((s) => {
      const views = [...s.sideBySide.views] as [Loadable<LayerView>, Loadable<LayerView>];
      views[index] = view;
      return { sideBySide: { ...s.sideBySide, views } };
    }),
  setPanePasses: (index, view) =>
    set((s) => {
      const passes = [...s.sideBySide.passes] as [Loadable<BlockPasses | null>, Loadable<BlockPasses | null>];
      passes[index] = view;
      return { sideBySide: { ...s.sideBySide, passes } };
    }),
});
