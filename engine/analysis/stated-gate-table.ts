/**
 * A gate table whose S values were stated, not computed here: what a run of the reference
 * pipeline hands over (phase2_stats.json carries S per (layer, component) and per component,
 * never the sums behind them).
 *
 *   statedGateTable(reference, blocks) → GateTable     blocks: { id, scale }, per layer and global
 *
 * Each score keeps its S exactly; the sums are empty (count 0) because none were measured, so
 * S_raw is S itself (it is already relative to the reference block) and the norms and conflict
 * share are 0. resolveScale reads only `scale`, so an edit from this table uses the stated S
 * bit for bit. Unlike computeGateTable, globals are not derived from the layers: the reference's
 * per-component S is its own aggregate, and it is what its merge falls back to.
 */
import { blockKey, EMPTY_SUMS, type BlockId } from '../crane/gate-accumulator.ts';
import type { BlockScore, GateTable } from '../crane/gate-scales.ts';
import type { LayerGroup } from '../crane/tensor-classification.ts';

export interface StatedScale {
  readonly id: BlockId;
  readonly scale: number;
}

export function statedGateTable(reference: LayerGroup, blocks: readonly StatedScale[]): GateTable {
  const scores = new Map<string, BlockScore>();
  for (const { id, scale } of blocks) {
    if (!Number.isFinite(scale)) throw new RangeError(`block ${blockKey(id)}: S must be a finite number, got ${scale}`);
    scores.set(blockKey(id), { id, sums: EMPTY_SUMS, sRaw: scale, scale, conflictShare: 0, deltaNorm: 0, thetaNorm: 0 });
  }
  return { reference, scores };
}
