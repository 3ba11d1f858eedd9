/**
 * Every direction's Δ of one whole tensor, for tests that build an edit as θ_I + Σ c_b·Δ_b:
 * a layer tensor's from basis.deltasOf, a row-local one's (embedding, lm_head) from
 * basis.rowDeltaOf over all its rows in one call — the edit of the whole tensor, which the
 * curvature stage computes a block of rows at a time (pipeline/tensor-deltas.ts).
 */
import type { DirectionBasis, DirectionDelta } from '../edit-directions.ts';

export function wholeDeltas(basis: DirectionBasis, name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array): DirectionDelta[] {
  const rowCount = shape[0] ?? 0;
  const moved = basis.movedRows(name, rowCount);
  if (moved === undefined) return basis.deltasOf(name, shape, thetaI, thetaT);
  return [...moved.keys()].map((direction) => ({ direction, delta: basis.rowDeltaOf(name, direction, { first: 0, count: rowCount }, thetaI, thetaT.slice()) }));
}
