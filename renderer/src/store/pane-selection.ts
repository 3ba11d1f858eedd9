/**
 * Side by side pane A and the heatmap's selected block are one selection: selecting a cell in
 * the heatmap shows it in pane A, and picking a block in pane A selects it in the heatmap (and
 * its spectrum). Compared by value, so the second update finds them equal and stops.
 */
import type { Block } from '../protocol.ts';
import type { AppState } from './app-store.ts';
import { sameBlock } from './settings-slice.ts';

const sameNonNull = (a: Block | null, b: Block | null) => a !== null && b !== null && sameBlock(a, b);

export function syncPaneWithSelection(s: AppState, prev: AppState): void {
  const selected = s.selection.block;
  const paneA = s.sideBySide.panes[0].block;
  if (selected !== prev.selection.block) {
    if (selected !== null && !sameNonNull(selected, paneA)) s.setPane(0, { block: selected });
  } else if (paneA !== prev.sideBySide.panes[0].block && !sameNonNull(paneA, selected)) {
    s.select(paneA);
  }
}
