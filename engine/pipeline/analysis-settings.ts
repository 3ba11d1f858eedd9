/**
 * The settings of an analysis run, on top of the protocol's AnalysisSettings (one type for the
 * UI, the CLI and the pipeline), with the spec's defaults (protocol/settings-defaults.ts).
 *
 *   defaultAnalysisSettings(calibration) → PipelineSettings
 *
 * Three knobs exist only here: what to do with sequences past the model's context
 * (calibration/context-length.ts; part of the targets key), the keep-quantile q the preview
 * coefficients are computed at (they bake T(δ) in, see engine/analysis/preview-coefficients.ts)
 * and how many sequences go through one gradient / capture pass (a memory knob: the runtime
 * stashes every layer's inputs of the batch). The batch size is NOT part of any cache key: the summed gradients are the same
 * mathematically, only float rounding differs.
 */
import type { LongSequencePolicy } from '../calibration/context-length.ts';
import { DEFAULT_ANALYSIS_KNOBS, DEFAULT_KEEP_QUANTILE } from '../protocol/settings-defaults.ts';
import type { AnalysisSettings, CalibrationSets } from '../protocol/settings-schemas.ts';

export interface PipelineSettings {
  readonly analysis: AnalysisSettings;
  readonly keepQuantile: number;
  /** Sequences per gradient or capture pass (memory only; not part of any cache key). */
  readonly batchSequences: number;
  /**
   * Worker threads of the gradients stage (default: the CPU cores, fewer when memory is short;
   * gradients-stage.ts). Not part of any cache key: the stored sums are bit-identical for any count.
   */
  readonly workers?: number;
  /** Calibration sequences longer than the model's context: cut (when absent), warn or refuse. */
  readonly longSequences?: LongSequencePolicy;
  /**
   * Backward passes per calibration set the curvature stage may make beyond its base pass
   * (default DEFAULT_CURVATURE_PROBES): one per edit direction while they fit, else a sketch
   * from this many probes (pipeline/curvature-stage.ts). Part of the curvature key when not the default.
   */
  readonly curvatureProbes?: number;
}

export const DEFAULT_BATCH_SEQUENCES = 8;
/**
 * 16: every built-in demo pair (≤ 14 directions) keeps its dense curvature, while a 28-layer
 * model's 88 directions cost 17 passes per set instead of 89. The sketch is exact along the
 * default edit from 2 probes up; more probes only sharpen per-group slider moves.
 */
export const DEFAULT_CURVATURE_PROBES = 16;

/** The reference analysis (protocol/settings-defaults.ts) of these calibration sets. */
export function defaultAnalysisSettings(calibration: CalibrationSets): PipelineSettings {
  return {
    analysis: { calibration, ...structuredClone(DEFAULT_ANALYSIS_KNOBS) },
    keepQuantile: DEFAULT_KEEP_QUANTILE,
    batchSequences: DEFAULT_BATCH_SEQUENCES,
  };
}
