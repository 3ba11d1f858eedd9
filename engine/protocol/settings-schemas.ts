/**
 * The one settings vocabulary: the knobs of an edit (instant to change), of an analysis (change
 * means re-running it), and the merge methods the studio compares. The protocol, the project
 * file, the engine (crane, analysis, pipeline, export), crane_recipe.json and the CLI all use
 * these names and ranges; only readers of older file versions translate (project-migration.ts,
 * the recipe's). Names and defaults follow shared/spec/crane.md; defaults live in
 * settings-defaults.ts, so no schema here carries one.
 */
import { z } from 'zod';
import { blockSchema, pathSchema } from './common-schemas.ts';

/** The one range of α, and of the baselines' λ (the same knob: how far towards θ_T). */
export const STRENGTH_RANGE = { min: 0, max: 4 } as const;
export const strengthSchema = z.number().min(STRENGTH_RANGE.min).max(STRENGTH_RANGE.max);

const unit = z.number().min(0).max(1);

/** One block's deviation from the computed gate. */
export const blockOverrideSchema = z.strictObject({
  block: blockSchema,
  /** Replaces S_CTG(c, l) for this block; null keeps the computed value. */
  gate: z.number().min(0).nullable(),
  /** Locked blocks keep θ_I exactly, whatever the other settings say. */
  locked: z.boolean(),
});

/** Stage toggles: `threshold` off → raw δ; `gate` off → S = 1 (overrides still apply); `gsp` off → no projection. */
export const craneStagesSchema = z.strictObject({ threshold: z.boolean(), gate: z.boolean(), gsp: z.boolean() });

/** Gate blocks per component group (the spec's default) or per projection (q, k, v, o, gate, up, down). */
export const granularitySchema = z.enum(['coarse', 'fine']);

/** Token ids: an id may repeat (a hand-written recipe); an edit gives its row the rule once (crane/special-tensors.ts). */
const tokenIdsSchema = z.array(z.int().nonnegative()).max(1_000_000);

/** The user's changes to the protected lm_head rows the tokenizer gives (protocol/protected-tokens.ts). */
export const protectedTokenEditsSchema = z.strictObject({ add: tokenIdsSchema, remove: tokenIdsSchema });

/** The rules of the tensors that bypass the three stages. */
export const specialTensorSettingsSchema = z.strictObject({
  /** Embedding and lm_head rows of <think>/</think> move this far towards θ_T (0.8). */
  thinkRows: unit,
  /** Untied lm_head: θ_I + lmHeadScale · δ (0.03). */
  lmHeadScale: unit,
  /** MoE routers: SLERP(θ_I, θ_T, t = α · routerAlphaFraction) (1/3). */
  routerAlphaFraction: unit,
  /** Ids added to / released from the protected lm_head rows; absent = the tokenizer's set as is. */
  protectedTokens: protectedTokenEditsSchema.optional(),
});

/**
 * The working arithmetic of an edit: `f32` (the studio's) computes every step in float32;
 * `reference` rounds each step to bfloat16 as the reference's crane_merge.py does (inputs cast
 * to bf16; δ, threshold, scaling and sum in bf16; GSP projection in f32, cast back), to
 * reproduce a released CRANE checkpoint (engine/crane/reference-arithmetic.ts).
 */
export const editArithmeticSchema = z.enum(['f32', 'reference']);

/** Every setting of θ_M = θ_I + Π_GSP(α · S_CTG · T(δ)) but the overrides, whose form depends on who states them. */
const craneKnobs = {
  alpha: strengthSchema,
  /** Keep quantile q of stage 1; survivors are rescaled by 1/(1−q). q = 0.5 is the reference. */
  keepQuantile: z.number().min(0).lt(1),
  /** Sigmoid centre τ and steepness k of the GSP mask w = sigmoid(k · (σ/σ₁ − τ)) (gsp-mask.ts). */
  tau: z.number().gt(0).lt(1),
  steepness: z.number().gt(0),
  stages: craneStagesSchema,
  granularity: granularitySchema,
  special: specialTensorSettingsSchema,
  /** Absent (settings and recipes written before it) = `f32`. */
  arith: editArithmeticSchema.optional(),
};

/** The settings as the studio holds them: overrides name heatmap cells (layer × column). */
export const craneSettingsSchema = z.strictObject({
  ...craneKnobs,
  overrides: z.array(blockOverrideSchema).max(100_000),
});

/** An engine block key: group, optional projection, layer or `*` (engine/crane/gate-accumulator.ts blockKey). */
export const blockKeySchema = z.string().regex(/^[a-z_]+(\.\w+)?@(\d+|\*)$/, 'must be a block key such as attention@3 or ffn.up@*');

/**
 * The same settings as an edit applies them (the engine's craneEdit, crane_recipe.json, the CLI):
 * overrides resolved to S by engine block key (`attention@3`, `ffn.up@1`, `norm@*`; a locked
 * block is 0), and the token rows the special-tensor rules move, read from the tokenizer.
 */
export const resolvedCraneSettingsSchema = z.strictObject({
  ...craneKnobs,
  overrideScales: z.record(blockKeySchema, z.number().min(0)),
  tokens: z.strictObject({
    /** Ids of `<think>` and `</think>`. */
    think: tokenIdsSchema,
    /**
     * Ids whose lm_head rows stay at θ_I: the tokenizer's added tokens but the think pair (the
     * reference's rule, special or not), with special.protectedTokens applied.
     */
    special: tokenIdsSchema,
  }),
});

/** Where the three calibration sets live (JSONL chats, see engine/calibration). */
export const calibrationSetsSchema = z.strictObject({
  reasoning: pathSchema,
  agent: pathSchema,
  format: pathSchema,
});

/**
 * Where Verify measures L_R and L_A. The gradients use every calibration example (the reference's
 * rule) unless a held-out share is asked for, which is then kept out of them.
 */
export const evaluationSetSchema = z.discriminatedUnion('source', [
  /** The calibration sets themselves: the very sequences the gradients and the prediction are about. */
  z.strictObject({ source: z.literal('calibration') }),
  /** This share of D_R and of D_A (by prompt hash) is kept out of the gradients for Verify. */
  z.strictObject({ source: z.literal('held-out'), fraction: z.number().gt(0).max(0.9) }),
  /** Separate evaluation chats, one JSONL file per set as the calibration sets are. */
  z.strictObject({ source: z.literal('files'), reasoning: pathSchema, agent: pathSchema }),
]);

/**
 * Variables a chat template reads besides the messages (Nanbeige4.2's; Qwen3's hybrid template
 * reads enable_thinking): each is passed only when set, so a template's own default applies
 * otherwise (engine/calibration/chat-template.ts).
 */
export const chatTemplateOptionsSchema = z.strictObject({
  enableThinking: z.boolean().optional(),
  preserveThinking: z.boolean().optional(),
  toolCallFormat: z.enum(['xml', 'json']).optional(),
});

export const analysisSettingsSchema = z.strictObject({
  calibration: calibrationSetsSchema,
  /** How every calibration and evaluation chat is rendered; absent = the template's defaults. */
  chatTemplate: chatTemplateOptionsSchema.optional(),
  reasoningMaxNewTokens: z.int().min(1).max(131_072),
  agentMaxNewTokens: z.int().min(1).max(131_072),
  evaluation: evaluationSetSchema,
  gsp: z.strictObject({
    maxRank: z.int().min(1).max(8192),
    /** Directions with σ_i ≤ rankCut · σ₁ are dropped (1e-5). */
    rankCut: z.number().gt(0).lt(1),
    radius: z.int().min(0).max(64),
    maxTokens: z.int().min(1).max(131_072),
    formatPatterns: z.array(z.string().min(1).max(256)).min(1).max(256),
  }),
});

/** The baselines, all with θ_I as the base; λ shares α's range, SLERP's t is a fraction. */
/** TIES's share of |δ| kept: an empty share would keep nothing. */
const tiesDensitySchema = z.number().gt(0).max(1);
export const taskArithmeticSchema = z.strictObject({ method: z.literal('task_arithmetic'), lambda: strengthSchema });
export const tiesSchema = z.strictObject({ method: z.literal('ties'), lambda: strengthSchema, density: tiesDensitySchema });
export const slerpSchema = z.strictObject({ method: z.literal('slerp'), t: unit });
export const dareSchema = z.strictObject({ method: z.literal('dare'), lambda: strengthSchema, dropProbability: z.number().min(0).lt(1), seed: z.int().nonnegative() });
/** AIM-TA (`aim`) and AIM-TIES (`aim_ties`): Task Arithmetic's or TIES's λ-scaled delta, shrunk per input channel. */
export const aimSchema = z.strictObject({ method: z.literal('aim'), lambda: strengthSchema, omega: unit });
export const aimTiesSchema = z.strictObject({ method: z.literal('aim_ties'), lambda: strengthSchema, omega: unit, density: tiesDensitySchema });
/**
 * LEWIS: TIES whose density per (layer, projection) runs from γ to ε by how much the two models'
 * importances differ there (lewis-schedule.ts); defaultDensity for tensors outside the schedule.
 */
export const lewisSchema = z.strictObject({ method: z.literal('lewis'), lambda: strengthSchema, gamma: unit, epsilon: unit, defaultDensity: unit })
  .refine((s) => s.gamma <= s.epsilon, { message: 'LEWIS needs γ ≤ ε', path: ['gamma'] });

/**
 * RAIN (K1nght/RAIN-Merging as rpi-nsl/CRANE's rain.py runs it): Thinking + α_h·proj_h(Instruct −
 * Base) on the q/k/v/o heads of the last `layersTail` layers; needs a Base checkpoint and two
 * calibration files (engine/pipeline/rain-*.ts). ridge: the null-space projection's λ; radius:
 * the <think>/</think> neighbourhood; priorScalar … rhoDu: the α QP; qpMaxTokens: the instruction
 * prompts' cut; seed: the constraint sites' shuffle and read-out directions. reasoningFile /
 * instructionsFile: the two calibration files as the UI names them (the CLI's --rain-reasoning /
 * --rain-instructions); a run takes them out of the settings, so a recipe records their SHA-256
 * (inputs.rainCalibration), never a path.
 */
export const rainSchema = z.strictObject({
  method: z.literal('rain'),
  ridge: z.number().gt(0).max(1),
  radius: z.int().min(0).max(64),
  layersTail: z.int().min(1).max(1024),
  priorScalar: z.number().min(0).max(4),
  l2Prior: z.number().min(0).max(1000),
  boxLo: z.number().min(-2).max(1),
  boxHi: z.number().min(0).max(4),
  hLambda: z.number().min(0).max(1000),
  hMu: z.number().min(0).max(1000),
  rhoDu: z.number().min(0).max(1000),
  qpMaxTokens: z.int().min(1).max(131_072),
  seed: z.int().nonnegative(),
  reasoningFile: pathSchema.optional(),
  instructionsFile: pathSchema.optional(),
}).refine((s) => s.boxLo <= s.boxHi, { message: 'RAIN needs box lo ≤ box hi', path: ['boxLo'] });

/** CRANE and the baselines. */
export const mergeMethodSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('crane'), settings: craneSettingsSchema }),
  taskArithmeticSchema, tiesSchema, slerpSchema, dareSchema, aimSchema, aimTiesSchema, lewisSchema, rainSchema,
]);

export type CraneSettings = z.infer<typeof craneSettingsSchema>;
export type ResolvedCraneSettings = z.infer<typeof resolvedCraneSettingsSchema>;
export type CraneStages = z.infer<typeof craneStagesSchema>;
export type Granularity = z.infer<typeof granularitySchema>;
export type EditArithmetic = z.infer<typeof editArithmeticSchema>;
export type TokenRows = ResolvedCraneSettings['tokens'];
export type SpecialTensorSettings = z.infer<typeof specialTensorSettingsSchema>;
export type ProtectedTokenEdits = z.infer<typeof protectedTokenEditsSchema>;
export type BlockOverride = z.infer<typeof blockOverrideSchema>;
export type AnalysisSettings = z.infer<typeof analysisSettingsSchema>;
export type CalibrationSets = z.infer<typeof calibrationSetsSchema>;
export type ChatTemplateOptions = z.infer<typeof chatTemplateOptionsSchema>;
export type EvaluationSet = z.infer<typeof evaluationSetSchema>;
export type MergeMethod = z.infer<typeof mergeMethodSchema>;
export type RainSettings = z.infer<typeof rainSchema>;
export type MergeMethodName = MergeMethod['method'];
/** A baseline as the protocol states it (AIM's importance vectors are the engine's to add). */
export type BaselineMethod = Exclude<MergeMethod, { method: 'crane' }>;
