/**
 * getGateMetrics: the settings-independent heatmaps of the loaded analysis, per layer × column
 * at the asked granularity — S_CTG, Σs_R, Σs_A, the conflict share and ‖δ‖/‖θ_I‖ of every block,
 * straight from the gate table (engine/crane/gate-scales.ts BlockScore).
 */
import type { Params, Result } from '../protocol/methods.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';

export function gateMetricsHandler(session: EngineSession) {
  return ({ granularity }: Params<'getGateMetrics'>): Promise<Result<'getGateMetrics'>> =>
    guarded(async () => {
      const columns = (await session.analysis()).columns[granularity];
      return {
        layers: columns.layers,
        groups: [...columns.names],
        gate: columns.matrix((s) => s.scale),
        sumReasoning: columns.matrix((s) => s.sums.reasoning),
        sumAgent: columns.matrix((s) => s.sums.agent),
        conflictShare: columns.matrix((s) => s.conflictShare),
        relativeDelta: columns.matrix((s) => (s.thetaNorm > 0 ? s.deltaNorm / s.thetaNorm : 0)),
      };
    });
}
