/**
 * What the analysis produces and the views computed from it: gate metrics per block, the instant
 * first-order preview, GSP spectra, side-by-side tensor views and measured (verified) losses.
 * Bulk values are Float32Array so they travel in binary frames.
 */
import { z } from 'zod';
import { analysisStageSchema, blockSchema, float32Schema, matrixSchema, pathSchema } from './common-schemas.ts';
import { evaluationSetSchema, mergeMethodSchema } from './settings-schemas.ts';

export const analysisSummarySchema = z.strictObject({
  projectDir: pathSchema,
  stages: z.array(z.strictObject({ stage: analysisStageSchema, cached: z.boolean(), seconds: z.number().nonnegative() })),
});

/** Settings-independent per-block metrics: one matrix each, rows = layers, cols = groups. */
export const gateMetricsSchema = z.strictObject({
  layers: z.int().nonnegative(),
  groups: z.array(z.string()),
  /** S_CTG(c, l): gate relative to the layer's reference block. */
  gate: matrixSchema,
  /** Σ s_R and Σ s_A over the block. */
  sumReasoning: matrixSchema,
  sumAgent: matrixSchema,
  /** Share of the block's coordinates where s_R and s_A have opposite signs. */
  conflictShare: matrixSchema,
  /** ‖δ‖ / ‖θ_I‖. */
  relativeDelta: matrixSchema,
});

const lossPairSchema = z.strictObject({ reasoning: z.number(), agent: z.number() });

/** The tensor groups the preview's breakdown names (engine/crane/edit-directions.ts EditGroup). */
export const PREVIEW_GROUPS = ['attention', 'linear_attn', 'ffn', 'expert', 'shared_expert', 'router', 'norm', 'other', 'final_norm', 'embed_think', 'lm_head_think', 'lm_head_blend'] as const;

/**
 * ΔL ≈ Σ c_b g·Δ_b + ½ Σ c_b c_b' Δ_bᵀHΔ_b', at the current α and along a sweep of α
 * (engine/analysis/preview.ts). `breakdown` sums to the totals; `firstOrder` and the curve's
 * first-order arrays leave the curvature out. `curvature.state` is `absent` when the analysis
 * has none (first order over the layer tensors only), `stale` when q/τ/k/toggles differ from
 * those it was measured at. `range`: the losses measured at analysis time next to the model,
 * and the α up to which they agree within the tolerance (null without measurements).
 */
export const previewSchema = z.strictObject({
  deltaLossReasoning: z.number(),
  deltaLossAgent: z.number(),
  firstOrder: lossPairSchema,
  breakdown: z.array(z.strictObject({ group: z.enum(PREVIEW_GROUPS), firstOrder: lossPairSchema, secondOrder: lossPairSchema })),
  curve: z
    .strictObject({ alphas: float32Schema, deltaLossReasoning: float32Schema, deltaLossAgent: float32Schema, firstOrderReasoning: float32Schema, firstOrderAgent: float32Schema })
    .refine((c) => [c.deltaLossReasoning, c.deltaLossAgent, c.firstOrderReasoning, c.firstOrderAgent].every((v) => v.length === c.alphas.length), 'curve arrays must have one value per α'),
  curvature: z.strictObject({ state: z.enum(['absent', 'current', 'stale']), staleReasons: z.array(z.string()) }),
  range: z
    .strictObject({
      trustedUpTo: z.number(),
      tolerance: z.strictObject({ relative: z.number(), absolute: z.number() }),
      split: z.string(),
      anchors: z.array(z.strictObject({ alpha: z.number(), measured: lossPairSchema, predicted: lossPairSchema, firstOrder: lossPairSchema, agrees: z.boolean() })),
    })
    .nullable(),
  /** Settings-dependent heatmaps: α · S per block, and ‖Δ'‖ / ‖Δ‖ after thresholding and GSP. */
  effectiveScale: matrixSchema,
  retainedNorm: matrixSchema,
});

export const activationKeySchema = z.enum(['attn_input', 'ffn_input']);

/**
 * The singular spectrum of one layer's format activations and what the sigmoid mask at the
 * request's τ and k keeps of the update. The mask weights w_i = sigmoid(k · (σ_i/σ₁ − τ)) and
 * Σw are not sent: the UI derives them from sigmaRatio with the shared mask function, so they
 * follow the τ/k sliders at paint speed instead of waiting for a reply.
 */
export const spectrumSchema = z.strictObject({
  layer: z.int().nonnegative(),
  key: activationKeySchema,
  /** σ_i / σ₁, descending. */
  sigmaRatio: float32Schema,
  /** ‖Δ'‖² / ‖Δ‖² over the tensors this key projects: needs the preview coefficients, so the engine computes it. */
  retainedFraction: z.number().min(0).max(1),
});

const histogramSchema = z
  .strictObject({ edges: float32Schema, counts: float32Schema })
  .refine((h) => h.edges.length === h.counts.length + 1, 'edges must have one more entry than counts');

/** One tensor of a block as Instruct, Thinking and the edit see it. */
export const tensorViewSchema = z.strictObject({
  name: z.string(),
  shape: z.array(z.int().nonnegative()),
  norms: z.strictObject({ instruct: z.number(), thinking: z.number(), edited: z.number(), delta: z.number() }),
  values: z.strictObject({ instruct: histogramSchema, thinking: histogramSchema, edited: histogramSchema }),
  delta: histogramSchema,
  /** Fraction of entries stage 1 keeps. */
  keptFraction: z.number().min(0).max(1),
  /** Downsampled |Δ| before and after projection. */
  deltaMap: z.strictObject({ before: matrixSchema, after: matrixSchema }),
});

export const layerViewSchema = z.strictObject({ block: blockSchema, tensors: z.array(tensorViewSchema) });

/** Calibration losses of the edited weights next to θ_I's, and the set they were measured on. */
export const verifyResultSchema = z.strictObject({
  method: mergeMethodSchema,
  measuredOn: evaluationSetSchema,
  edited: lossPairSchema,
  base: lossPairSchema,
  tokens: z.strictObject({ reasoning: z.int().nonnegative(), agent: z.int().nonnegative() }),
  seconds: z.number().nonnegative(),
  /**
   * The run-history fields (absent in results saved before them): ΔL the preview predicted for
   * exactly this edit (CRANE; null for baselines, which have no prediction) and when the run ended.
   */
  predicted: lossPairSchema.nullable().optional(),
  finishedAt: z.iso.datetime().optional(),
});

/** openReferenceRun: what was imported into the project's analysis (pipeline/reference-run.ts). */
export const referenceRunSummarySchema = z.strictObject({
  projectDir: pathSchema,
  /** The files read: stats, projectors and the optional linear-attention projectors. */
  files: z.array(pathSchema),
  gateBlocks: z.int().nonnegative(),
  projectors: z.int().nonnegative(),
});
