/**
 * getPassMetrics: the per-pass views of a looped model's analysis (protocol/pass-schemas.ts) —
 * Σs_R, Σs_A, Σp and the conflict share per (pass, layer, block) beside the combined gate, and
 * each pass's GSP spectrum beside the pooled one — read from DIR/stages/passes (the pipeline's
 * pass-metrics-stage.ts). Null for a model without a loop.
 */
import { readCurrentPassMetrics } from '../pipeline/pass-metrics-stage.ts';
import type { Result } from '../protocol/methods.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';

export function passMetricsHandler(session: EngineSession) {
  return (): Promise<Result<'getPassMetrics'>> =>
    guarded(async () => {
      const analysis = await session.analysis();
      return readCurrentPassMetrics(analysis.analysisDir, analysis.record);
    });
}
