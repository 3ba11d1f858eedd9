/** A project: the pair, calibration sets, settings and measured points, saved in its folder. */
import { z } from 'zod';
import { analysisStageSchema, pathSchema } from './common-schemas.ts';
import { verifyResultSchema } from './analysis-schemas.ts';
import { analysisSettingsSchema, craneSettingsSchema } from './settings-schemas.ts';

/** What the project file stores; the analysis cache lives beside it in the project folder. */
export const projectFileSchema = z.strictObject({
  instruct: pathSchema.nullable(),
  thinking: pathSchema.nullable(),
  /** The optional Base checkpoint methods like RAIN read (τ = Instruct − Base); absent = none. */
  base: pathSchema.nullable().optional(),
  analysis: analysisSettingsSchema.nullable(),
  settings: craneSettingsSchema,
  verified: z.array(verifyResultSchema),
});

/** 'stale': cached, but computed with other inputs or analysis settings than the project's now. */
export const stageStateSchema = z.strictObject({
  stage: analysisStageSchema,
  state: z.enum(['missing', 'cached', 'stale']),
});

export const projectStateSchema = z.strictObject({
  projectDir: pathSchema,
  project: projectFileSchema,
  stages: z.array(stageStateSchema),
});

/** A pair that ships with the studio, as the project it opens (engine/project/builtin-pairs.ts). */
export const builtinProjectSchema = z.strictObject({
  name: z.string().min(1),
  label: z.string().min(1),
  projectDir: pathSchema,
});

export const exportSummarySchema = z.strictObject({
  outDir: pathSchema,
  files: z.array(z.string()),
  totalBytes: z.number().nonnegative(),
  /** The recipe JSON written beside the weights: all settings and the input hashes. */
  recipe: z.json(),
  seconds: z.number().nonnegative(),
});
