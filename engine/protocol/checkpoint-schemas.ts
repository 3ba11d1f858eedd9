/** What the UI is told about a checkpoint folder and about an Instruct/Thinking pair. */
import { z } from 'zod';
import { pathSchema, storedDtypeSchema } from './common-schemas.ts';
import { resolvedCraneSettingsSchema } from './settings-schemas.ts';

export const checkpointSummarySchema = z.strictObject({
  dir: pathSchema,
  modelType: z.string().nullable(),
  architectures: z.array(z.string()),
  layers: z.int().nonnegative().nullable(),
  totalBytes: z.number().nonnegative(),
  tensorCount: z.int().nonnegative(),
  shards: z.array(z.string()),
  sideFiles: z.array(z.string()),
});

export const tensorRowSchema = z.strictObject({
  name: z.string(),
  dtype: storedDtypeSchema,
  shape: z.array(z.int().nonnegative()),
  shard: z.string(),
  bytes: z.number().nonnegative(),
});

export const checkpointDetailSchema = z.strictObject({
  summary: checkpointSummarySchema,
  tensors: z.array(tensorRowSchema),
});

const mismatchSchema = z.strictObject({ name: z.string(), instruct: z.string(), thinking: z.string() });

/** Mirrors engine/io/pair-report.ts: errors block an edit, warnings are handled by CRANE's rules. */
export const pairReportSchema = z.strictObject({
  compatible: z.boolean(),
  /** refused (errors), caveats (warnings CRANE's rules handle), identical (one folder twice), compatible. */
  verdict: z.enum(['refused', 'caveats', 'identical', 'compatible']),
  sharedTensors: z.int().nonnegative(),
  onlyInInstruct: z.array(z.string()),
  onlyInThinking: z.array(z.string()),
  shapeMismatches: z.array(mismatchSchema),
  dtypeMismatches: z.array(mismatchSchema),
  findings: z.array(
    z.strictObject({ severity: z.enum(['error', 'warning', 'info']), code: z.string(), message: z.string() }),
  ),
  /** Instruct's think rows and protected lm_head rows (its added tokens but the think pair), before the user's edits. */
  tokens: resolvedCraneSettingsSchema.shape.tokens,
  /** The optional Base checkpoint (engine/io/base-report.ts): tensors it matches, lacks or reshapes. */
  base: z.strictObject({
    dir: z.string(),
    matchedTensors: z.int().nonnegative(),
    missingTensors: z.array(z.string()),
    shapeMismatches: z.array(z.strictObject({ name: z.string(), base: z.string(), pair: z.string() })),
  }).optional(),
});

export const pairSummarySchema = z.strictObject({
  instruct: checkpointSummarySchema,
  thinking: checkpointSummarySchema,
  /** The project's Base checkpoint, when one was opened with the pair (RAIN's τ = Instruct − Base). */
  base: checkpointSummarySchema.optional(),
  report: pairReportSchema,
});
