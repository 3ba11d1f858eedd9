/**
 * `crane_recipe.json`: everything an export was made from, enough to make it again bit for bit.
 *
 *   parseRecipe(json, file?) → Recipe          validated (CheckpointError 'metadata' naming the field)
 *   craneSettingsToJson(settings) / craneSettingsFromJson(json)
 *
 * Holds the method and every setting, the SHA-256 of every input file of both checkpoints and of
 * the analysis artifacts the edit reads (gate table, projectors), the engine version and the
 * output dtype and shard size. Paths are not part of it: the same files anywhere reproduce the
 * export. AIM is not recipe-able yet: its per-tensor input magnitudes come from the runtime and
 * have no artifact file to hash.
 */
import { z } from 'zod';
import type { BaselineSettings } from '../crane/baselines.ts';
import type { CraneSettings } from '../crane/crane-edit.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';

export const RECIPE_FILE = 'crane_recipe.json';
export const RECIPE_FORMAT = 'crane-recipe';
export const RECIPE_FORMAT_VERSION = 1;

const hashesSchema = z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/));
const tokenIdsSchema = z.array(z.int().nonnegative());

const craneSettingsSchema = z.strictObject({
  alpha: z.number(),
  keepQuantile: z.number().min(0).lt(1),
  tau: z.number().gt(0),
  steepness: z.number().gt(0).optional(),
  stages: z.strictObject({ threshold: z.boolean(), gate: z.boolean(), gsp: z.boolean() }),
  granularity: z.enum(['coarse', 'fine']),
  /** S by blockKey (`attention@3`, `expert.gate@7`, `norm@*`). */
  overrides: z.record(z.string(), z.number()),
  tokens: z.strictObject({ think: tokenIdsSchema, special: tokenIdsSchema }),
  thinkStrength: z.number().optional(),
  lmHeadScale: z.number().optional(),
});

const methodSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('crane'), settings: craneSettingsSchema }),
  z.strictObject({ method: z.literal('task_arithmetic'), lambda: z.number() }),
  z.strictObject({ method: z.literal('ties'), lambda: z.number(), density: z.number().min(0).max(1) }),
  z.strictObject({ method: z.literal('slerp'), t: z.number() }),
  z.strictObject({ method: z.literal('dare'), lambda: z.number(), dropProbability: z.number().min(0).lt(1), seed: z.int().nonnegative() }),
]);

export const exportDtypeSchema = z.enum(['source', 'F32', 'F16', 'BF16']);

const recipeSchema = z.strictObject({
  format: z.literal(RECIPE_FORMAT),
  formatVersion: z.literal(RECIPE_FORMAT_VERSION),
  engineVersion: z.string(),
  method: methodSchema,
  /** Hashes of the analysis artifacts the edit reads; null when it reads none. */
  analysis: z.strictObject({ files: hashesSchema }).nullable(),
  inputs: z.strictObject({ instruct: z.strictObject({ files: hashesSchema }), thinking: z.strictObject({ files: hashesSchema }) }),
  output: z.strictObject({ dtype: exportDtypeSchema, maxShardBytes: z.int().positive() }),
});

export type Recipe = z.infer<typeof recipeSchema>;
export type RecipeMethod = Recipe['method'];
export type ExportDtype = z.infer<typeof exportDtypeSchema>;
export type RecipeCraneSettings = z.infer<typeof craneSettingsSchema>;

/** BaselineSettings without AIM (see the header) is exactly the recipe's baseline union. */
export type RecipeBaseline = Exclude<BaselineSettings, { method: 'aim' }>;

export function parseRecipe(json: unknown, file = RECIPE_FILE): Recipe {
  const parsed = recipeSchema.safeParse(json);
  if (!parsed.success) throw new CheckpointError('metadata', file, `is not a valid recipe: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function craneSettingsToJson(settings: CraneSettings): RecipeCraneSettings {
  const { alpha, keepQuantile, tau, steepness, stages, granularity, overrides, tokens, thinkStrength, lmHeadScale } = settings;
  return {
    alpha, keepQuantile, tau, steepness, stages: { ...stages }, granularity,
    overrides: Object.fromEntries(overrides ?? []),
    tokens: { think: [...tokens.think], special: [...tokens.special] },
    thinkStrength, lmHeadScale,
  };
}

export function craneSettingsFromJson(json: RecipeCraneSettings): CraneSettings {
  return { ...json, overrides: new Map(Object.entries(json.overrides)) };
}
