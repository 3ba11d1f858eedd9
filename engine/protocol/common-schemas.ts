/** Small schemas shared by several methods of the protocol map. */
import { z } from 'zod';

/** Chosen by the client, unique among its requests in flight on one connection. */
export const requestIdSchema = z.int().nonnegative();

/**
 * A file-system path as the UI sends it. Only the shape is checked here (the protocol runs in the
 * browser too); the engine checks absolute/normalised/exists before it touches the disk.
 */
export const pathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\0'), 'must not contain NUL characters');

/** Bulk numbers travel as Float32Array, carried in binary frames rather than as JSON arrays. */
export const float32Schema = z.instanceof(Float32Array);

/** A layers × columns matrix of one metric, row-major by layer. */
export const matrixSchema = z
  .strictObject({ rows: z.int().nonnegative(), cols: z.int().nonnegative(), values: float32Schema })
  .refine((m) => m.values.length === m.rows * m.cols, 'values.length must equal rows × cols');

/** Every safetensors dtype a checkpoint may store (engine/io/dtype.ts; the server's types check they agree). */
export const storedDtypeSchema = z.enum(['F64', 'F32', 'F16', 'BF16', 'I64', 'I32', 'I16', 'I8', 'U64', 'U32', 'U16', 'U8', 'BOOL']);

/** Dtypes an export can write; 'source' keeps each tensor's own dtype (the default). */
export const exportDtypeSchema = z.enum(['source', 'F32', 'F16', 'BF16']);

/**
 * A CRANE block (c, l): layer l × component group c. Coarse groups are attention, ffn, expert,
 * shared_expert, router, linear_attn, norm; fine groups name one projection (q, k, v, o, gate,
 * up, down), optionally with an expert index ("gate.17").
 */
export const blockSchema = z.strictObject({
  layer: z.int().nonnegative(),
  group: z.string().regex(/^[a-z_]+(\.\d+)?$/, 'must be a group name such as "attention" or "gate.17"'),
});

/**
 * The analysis stages in the order they run, each with its own cache (engine/pipeline): what
 * analyze reports and what a project's stage states list. The one list the engine, the CLI, the
 * UI and the synthetic engine all use.
 */
export const ANALYSIS_STAGES = [
  'targets', // greedy-decode the calibration answers (D_R by Thinking, D_A by Instruct)
  'projectors', // format activations and their SVD (GSP)
  'gradients', // g_R and g_A at θ_I, layer by layer
  'gates', // per-block gate sums, δ statistics and the preview coefficients
  'curvature', // the preview's special-tensor gradients, curvature along the edit and measured anchors
] as const;

/** The stages of the long jobs, named in progress and stageDone events. */
export const STAGES = [
  ...ANALYSIS_STAGES,
  'verify', // edited weights, measured held-out losses
  'export', // streamed, sharded, atomic write
] as const;

export const analysisStageSchema = z.enum(ANALYSIS_STAGES);
export const stageSchema = z.enum(STAGES);

export const logLevelSchema = z.enum(['debug', 'info', 'warn', 'error']);
