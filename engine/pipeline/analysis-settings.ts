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
 * stashes every layer's inputs of the batch). It is part of the gradients stage's key only: the
 * split decides the stored sums' rounding (gradients-stage.ts); the result key leaves it out, as
 * the summed gradients are the same mathematically.
 */
import type { LongSequencePolicy } from '../calibration/context-length.ts';
import { DEFAULT_ANALYSIS_KNOBS, DEFAULT_KEEP_QUANTILE } from '../protocol/settings-defaults.ts';
import type { AnalysisSettings, CalibrationSets } from '../protocol/settings-schemas.ts';

export interface PipelineSettings {
  readonly analysis: AnalysisSettings;
  readonly keepQuantile: number;
  /** Sequences per gradient or capture pass (memory; in the gradients stage's key, not the result's). */
  readonly batchSequences: number;
  /**
   * Worker threads of the gradients stage (default: the CPU cores, fewer when memory is short;
   * gradients-stage.ts). Not part of any cache key: the stored sums are bit-identical for any count.
   */
  readonly workers?: number;
  /** Calibration sequences longer than the model's context: cut (when absent), warn or refuse. */
  readonly longSequences?: LongSequencePolicy;
  /**
   * Backward passes per calibration set the curvature stage may make beyond its base pass: one
   * per edit direction while they fit, else a sketch from this many probes
   * (pipeline/curvature-probes.ts). Absent: dense up to DENSE_CURVATURE_DIRECTIONS directions,
   * else DEFAULT_SKETCH_PROBES probes. Part of the curvature key when given.
   */
  readonly curvatureProbes?: number;
}

export const DEFAULT_BATCH_SEQUENCES = 8;
/**
 * The curvature stage without --curvature-probes: dense while B ≤ 16 (every built-in demo pair,
 * B ≤ 14, keeps its dense M), else 2 probes — the default edit's α-free and α parts, which make
 * the sketch exact along the default edit at every α, the preview's main question. Each further
 * probe costs a backward pass per set, at 0.6B shapes about what the whole gradients stage costs,
 * for sharper per-group slider moves only: asked for with the flag, not by default.
 */
export const DENSE_CURVATURE_DIRECTIONS = 16;
export const DEFAULT_SKETCH_PROBES = 2;

/** The reference analysis (protocol/settings-defaults.ts) of these calibration sets. */
export function defaultAnalysisSettings(calibration: CalibrationSets): PipelineSettings {
  return {
    analysis: { calibration, ...structuredClone(DEFAULT_ANALYSIS_KNOBS) },
    keepQuantile: DEFAULT_KEEP_QUANTILE,
    batchSequences: DEFAULT_BATCH_SEQUENCES,
  };
}
