/**
 * `crane_recipe.json`: everything an export was made from, enough to make it again bit for bit.
 *
 *   parseRecipe(json, file?) → Recipe          validated (CheckpointError 'metadata' naming the field)
 *
 * The method and its settings are the protocol's, as an edit applies them
 * (resolvedCraneSettingsSchema, baselineSchemas); version 1 recipes, written before the settings
 * had one vocabulary, are read through recipe-migration.ts.
 *
 * Holds the method and every setting, the SHA-256 of every input file of both checkpoints and of
 * the analysis artifacts the edit reads (gate table, projectors) and where the export folder
 * keeps their copies (recipe-analysis.ts), the engine version and the output dtype and shard
 * size. Paths are not part of it: the same files anywhere reproduce the export. AIM is not recipe-able yet: its per-tensor input magnitudes come from the runtime and
 * have no artifact file to hash.
 */
import { z } from 'zod';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { dareSchema, resolvedCraneSettingsSchema, slerpSchema, taskArithmeticSchema, tiesSchema, type BaselineMethod } from '../protocol/settings-schemas.ts';
import { EMBEDDED_ANALYSIS_FILES } from './recipe-analysis.ts';
import { migrateRecipe } from './recipe-migration.ts';

export const RECIPE_FILE = 'crane_recipe.json';
export const RECIPE_FORMAT = 'crane-recipe';
/** 2: the protocol's settings vocabulary (special-tensor rules and router fraction included). */
export const RECIPE_FORMAT_VERSION = 3;

const hashesSchema = z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/));
const methodSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('crane'), settings: resolvedCraneSettingsSchema }),
  taskArithmeticSchema, tiesSchema, slerpSchema, dareSchema, // not AIM (see the header)
]);

const embeddedSchema = z.strictObject(
  Object.fromEntries(Object.entries(EMBEDDED_ANALYSIS_FILES).map(([name, copy]) => [name, z.literal(copy)])),
);

export const exportDtypeSchema = z.enum(['source', 'F32', 'F16', 'BF16']);

const recipeSchema = z.strictObject({
  format: z.literal(RECIPE_FORMAT),
  formatVersion: z.literal(RECIPE_FORMAT_VERSION),
  engineVersion: z.string(),
  method: methodSchema,
  /**
   * Hashes of the analysis artifacts the edit reads; null when it reads none. `embedded`: each
   * artifact's byte-for-byte copy in the export folder, by artifact name (absent in recipes
   * written before exports carried them: those reproduce with the analysis folder only).
   */
  analysis: z.strictObject({ files: hashesSchema, embedded: embeddedSchema.optional() }).nullable(),
  inputs: z.strictObject({ instruct: z.strictObject({ files: hashesSchema }), thinking: z.strictObject({ files: hashesSchema }) }),
  output: z.strictObject({ dtype: exportDtypeSchema, maxShardBytes: z.int().positive() }),
});

export type Recipe = z.infer<typeof recipeSchema>;
export type RecipeMethod = Recipe['method'];
export type ExportDtype = z.infer<typeof exportDtypeSchema>;

/** The protocol's baselines without AIM (see the header): the recipe's baseline union. */
export type RecipeBaseline = Exclude<BaselineMethod, { method: 'aim' | 'aim_ties' | 'lewis' }>;

export function parseRecipe(json: unknown, file = RECIPE_FILE): Recipe {
  const parsed = recipeSchema.safeParse(migrateRecipe(json, file));
  if (!parsed.success) throw new CheckpointError('metadata', file, `is not a valid recipe: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
