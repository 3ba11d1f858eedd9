/**
 * The settings of an analysis run, on top of the protocol's AnalysisSettings (one type for the
 * UI, the CLI and the pipeline), with the spec's defaults.
 *
 *   defaultAnalysisSettings(calibration) → PipelineSettings
 *
 * Two knobs exist only here: the keep-quantile q the preview coefficients are computed at (they
 * bake T(δ) in, see engine/analysis/preview-coefficients.ts) and how many sequences go through
 * one gradient / capture pass (a memory knob: the runtime stashes every layer's inputs of the
 * batch). The batch size is NOT part of any cache key: the summed gradients are the same
 * mathematically, only float rounding differs.
 */
import type { z } from 'zod';
import { DEFAULT_FORMAT_PATTERNS, DEFAULT_FORMAT_RADIUS } from '../calibration/format-positions.ts';
import { DEFAULT_MAX_RANK, DEFAULT_RANK_CUT } from '../crane/gsp-projector.ts';
import { DEFAULT_KEEP_QUANTILE } from '../crane/magnitude-threshold.ts';
import type { analysisSettingsSchema, calibrationSetsSchema } from '../protocol/settings-schemas.ts';

export type AnalysisSettings = z.infer<typeof analysisSettingsSchema>;
export type CalibrationPaths = z.infer<typeof calibrationSetsSchema>;

export interface PipelineSettings {
  readonly analysis: AnalysisSettings;
  readonly keepQuantile: number;
  /** Sequences per gradient or capture pass (memory only; not part of any cache key). */
  readonly batchSequences: number;
}

/** Reference sizes: 8192 new tokens for D_R, 2048 for D_A; GSP traces cut at 4096 tokens. */
export const DEFAULT_REASONING_MAX_NEW_TOKENS = 8192;
export const DEFAULT_AGENT_MAX_NEW_TOKENS = 2048;
export const DEFAULT_FORMAT_MAX_TOKENS = 4096;
export const DEFAULT_HELD_OUT_FRACTION = 0.25;
export const DEFAULT_BATCH_SEQUENCES = 8;

export function defaultAnalysisSettings(calibration: CalibrationPaths): PipelineSettings {
  return {
    analysis: {
      calibration,
      reasoningMaxNewTokens: DEFAULT_REASONING_MAX_NEW_TOKENS,
      agentMaxNewTokens: DEFAULT_AGENT_MAX_NEW_TOKENS,
      heldOutFraction: DEFAULT_HELD_OUT_FRACTION,
      gsp: {
        maxRank: DEFAULT_MAX_RANK,
        rankCut: DEFAULT_RANK_CUT,
        radius: DEFAULT_FORMAT_RADIUS,
        maxTokens: DEFAULT_FORMAT_MAX_TOKENS,
        formatPatterns: [...DEFAULT_FORMAT_PATTERNS],
      },
    },
    keepQuantile: DEFAULT_KEEP_QUANTILE,
    batchSequences: DEFAULT_BATCH_SEQUENCES,
  };
}
