/**
 * The overridden and locked blocks as heatmap cells, so the grid shows at a glance which S_CTG
 * values the researcher replaced (a corner triangle) and which blocks stay at θ_I (a cross).
 */
import type { CellRef } from '../../lib/heatmap-geometry.ts';
import type { BlockOverride } from '../../protocol.ts';

export interface CellMark {
  readonly cell: CellRef;
  readonly locked: boolean;
  /** The gate set by hand, or null when only locked. */
  readonly gate: number | null;
}

/** One mark per override whose block is a column of the grid (the other granularity's overrides have no cell here). */
export function overrideMarks(overrides: readonly BlockOverride[], groups: readonly string[], layers: number): CellMark[] {
  return overrides.flatMap(({ block, locked, gate }) => {
    const groupIndex = groups.indexOf(block.group);
    return groupIndex < 0 || block.layer >= layers ? [] : [{ cell: { layer: block.layer, groupIndex }, locked, gate }];
  });
}

/** What the tooltip says about a cell's override, or null when it has none. */
export function describeMark(mark: CellMark | undefined, format: (v: number) => string): string | null {
  if (mark === undefined) return null;
  if (mark.locked) return 'locked: keeps θ_I (S = 0)';
  return mark.gate === null ? null : `gate overridden: S = ${format(mark.gate)}`;
}
