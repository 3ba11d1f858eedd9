/**
 * The knobs of an edit (instant to change) and of an analysis (change means re-running it), and
 * the merge methods the studio compares. Names and defaults follow shared/spec/crane.md; presets
 * (paper defaults for 30B/80B) are UI data, so no schema here carries a default.
 */
import { z } from 'zod';
import { blockSchema, pathSchema } from './common-schemas.ts';

const unit = z.number().min(0).max(1);

/** One block's deviation from the computed gate. */
export const blockOverrideSchema = z.strictObject({
  block: blockSchema,
  /** Replaces S_CTG(c, l) for this block; null keeps the computed value. */
  gate: z.number().min(0).nullable(),
  /** Locked blocks keep θ_I exactly, whatever the other settings say. */
  locked: z.boolean(),
});

/** θ_M = θ_I + Π_GSP(α · S_CTG · T(δ)), with the special-tensor rules. */
export const craneSettingsSchema = z.strictObject({
  alpha: z.number().min(0).max(4),
  /** Keep quantile q of stage 1; survivors are rescaled by 1/(1−q). q = 0.5 is the reference. */
  keepQuantile: z.number().min(0).lt(1),
  /** Sigmoid centre τ and steepness k of the GSP mask w = sigmoid(k · (σ/σ₁ − τ)). */
  tau: z.number().gt(0).lt(1),
  steepness: z.number().gt(0),
  stages: z.strictObject({ threshold: z.boolean(), ctg: z.boolean(), gsp: z.boolean() }),
  grouping: z.enum(['coarse', 'fine']),
  special: z.strictObject({
    /** Embedding and lm_head rows of <think>/</think> move this far towards θ_T (0.8). */
    thinkRows: unit,
    /** Untied lm_head: θ_I + lmHeadScale · δ (0.03). */
    lmHeadScale: unit,
    /** MoE routers: SLERP(θ_I, θ_T, t = α · routerAlphaFraction) (1/3). */
    routerAlphaFraction: unit,
  }),
  overrides: z.array(blockOverrideSchema).max(100_000),
});

/** Where the three calibration sets live (JSONL chats, see engine/calibration). */
export const calibrationSetsSchema = z.strictObject({
  reasoning: pathSchema,
  agent: pathSchema,
  format: pathSchema,
});

export const analysisSettingsSchema = z.strictObject({
  calibration: calibrationSetsSchema,
  reasoningMaxNewTokens: z.int().min(1).max(131_072),
  agentMaxNewTokens: z.int().min(1).max(131_072),
  /** Share of each calibration set held out for Verify (never used by the gate). */
  heldOutFraction: z.number().min(0).max(0.9),
  gsp: z.strictObject({
    maxRank: z.int().min(1).max(8192),
    /** Directions with σ_i ≤ rankCut · σ₁ are dropped (1e-5). */
    rankCut: z.number().gt(0).lt(1),
    radius: z.int().min(0).max(64),
    maxTokens: z.int().min(1).max(131_072),
    formatPatterns: z.array(z.string().min(1).max(256)).min(1).max(256),
  }),
});

const lambda = z.number().min(0).max(4);

/** CRANE and the baselines, all with θ_I as the base. */
export const mergeMethodSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('crane'), settings: craneSettingsSchema }),
  z.strictObject({ kind: z.literal('task-arithmetic'), lambda }),
  z.strictObject({ kind: z.literal('ties'), lambda, density: z.number().gt(0).max(1) }),
  z.strictObject({ kind: z.literal('slerp'), t: unit }),
  z.strictObject({ kind: z.literal('dare'), lambda, dropRate: z.number().min(0).lt(1), seed: z.int().nonnegative() }),
  z.strictObject({ kind: z.literal('aim'), lambda, omega: unit }),
]);
