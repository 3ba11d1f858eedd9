/**
 * The analysis' router statistics (MoE models only), measured on the Instruct model by the
 * projectors stage: per calibration set, the D_R and D_A loss-target tokens (what the gradients
 * score) and D_F's format positions (what GSP captures) — counted at the token's own position.
 * Every train calibration sequence goes through the model once, in the stage's shared pass.
 *
 *   routerStatsMeasurement(spec, calibration) → { requests, result() } (shared-forward.ts), or
 *                                               undefined for a dense model
 */
import { RouterStatsAccumulator, type RouterStats } from '../analysis/router-stats.ts';
import type { ModelSpec } from '../model/config.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';
import { routingRequest } from './forward-requests.ts';
import type { ForwardMeasurement } from './shared-forward.ts';

/** The positions of a sequence that count for its set. */
function countedPositions(s: CalibrationSequence): number[] {
  if (s.set === 'format') return [...(s.formatPositions ?? [])];
  return (s.lossMask ?? []).flatMap((m, t) => (m === 1 ? [t] : []));
}

export function routerStatsMeasurement(spec: ModelSpec, calibration: readonly CalibrationSequence[]): ForwardMeasurement<RouterStats> | undefined {
  const moe = spec.moe;
  if (moe === undefined) return undefined;
  const stats = new RouterStatsAccumulator(moe.numExperts, moe.expertsPerToken);
  const requests = calibration
    .filter((s) => s.split === 'train' && countedPositions(s).length > 0)
    .map((s, i) => {
      const positions = countedPositions(s);
      return routingRequest(s.ids, i, ({ layer, routing }) => stats.add(s.set, layer, routing, positions));
    });
  return { requests, result: () => stats.json() };
}
