/**
 * A DirectionDeltas whose every Δ is computed whole when first asked, an untied lm_head's blend
 * gathered over all its rows (tensorDeltas' own gather): what the curvature passes read before
 * they formed that Δ by rows (rowwise-deltas.ts), for tests that compare the two.
 */
import type { DirectionBasis } from '../../crane/edit-directions.ts';
import type { TensorDelta } from '../delta-store.ts';
import type { DirectionDeltas } from '../direction-deltas.ts';
import { movesTensor, tensorDeltas, type CheckpointPair } from '../tensor-deltas.ts';

export function gatheredDeltas(pair: CheckpointPair, basis: DirectionBasis): DirectionDeltas {
  const kept = new Map<string, Promise<TensorDelta[]>>();
  return {
    size: basis.directions.length,
    directionsOf: (name) => basis.directionsOf(name),
    deltasOf: (name) => {
      if (!movesTensor(pair, basis, name, false)) return Promise.resolve([]);
      if (!kept.has(name)) kept.set(name, tensorDeltas(pair, basis, name));
      return kept.get(name) as Promise<TensorDelta[]>;
    },
  };
}
