/**
 * getExpertMetrics: the loaded analysis' layer × expert views (analysis/expert-metrics.ts) —
 * S per expert from its gate table and the router statistics the projectors stage measured
 * (DIR/stages/projectors/router-stats.json; an imported reference run has none). Null for a
 * model without routed experts.
 */
import { join } from 'node:path';
import { expertMetrics } from '../analysis/expert-metrics.ts';
import { readRouterStats, ROUTER_STATS_FILE } from '../analysis/router-stats.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import type { Result } from '../protocol/methods.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';

export function expertMetricsHandler(session: EngineSession) {
  return (): Promise<Result<'getExpertMetrics'>> =>
    guarded(async () => {
      const analysis = await session.analysis();
      const stats = await readRouterStats(join(pipelinePaths(analysis.analysisDir).projectors, ROUTER_STATS_FILE));
      return expertMetrics(analysis.artifacts.gate, stats, analysis.columns.coarse.layers);
    });
}
