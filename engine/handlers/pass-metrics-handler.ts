/**
 * getPassMetrics: the per-pass views of a looped model's analysis (protocol/pass-schemas.ts) —
 * Σs_R, Σs_A, Σp and the conflict share per (pass, layer, block) beside the combined gate, and
 * each pass's GSP spectrum beside the pooled one — read from DIR/stages/passes (the pipeline's
 * pass-metrics-stage.ts), each block with the gate heatmap's column (block-columns.ts), so the
 * views lay passes out as getGateMetrics lays out the combined gate. Null without a loop.
 */
import { blockKey } from '../crane/gate-accumulator.ts';
import type { LayerGroup } from '../crane/tensor-classification.ts';
import { readCurrentPassMetrics } from '../pipeline/pass-metrics-stage.ts';
import type { Result } from '../protocol/methods.ts';
import type { StoredPassBlock } from '../protocol/pass-schemas.ts';
import type { EngineSession, LoadedAnalysis } from './engine-session.ts';
import { guarded } from './handler-errors.ts';

export function passMetricsHandler(session: EngineSession) {
  return (): Promise<Result<'getPassMetrics'>> =>
    guarded(async () => {
      const analysis = await session.analysis();
      const stored = await readCurrentPassMetrics(analysis.analysisDir, analysis.record);
      if (stored === null) return null;
      return { ...stored, blocks: stored.blocks.flatMap((block) => withColumn(analysis, block)) };
    });
}

/** The block with its heatmap column; none when the gate table has no such block (a file of another analysis). */
function withColumn(analysis: LoadedAnalysis, block: StoredPassBlock) {
  const columns = analysis.columns[block.block === null ? 'coarse' : 'fine'];
  const cell = columns.cell(blockKey({ group: block.group as LayerGroup, block: block.block, layer: block.layer }));
  const column = columns.names[cell % columns.names.length];
  return cell < 0 || column === undefined ? [] : [{ ...block, column }];
}
