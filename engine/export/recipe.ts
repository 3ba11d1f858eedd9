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
 * keeps their copies (recipe-analysis.ts), the same for the importance files AIM and LEWIS read
 * (recipe-importance.ts; present exactly for those methods), the engine version and the output
 * dtype and shard size. Paths are not part of it: the same files anywhere reproduce the export.
 */
import { z } from 'zod';
import { CheckpointError } from '../io/checkpoint-error.ts';
import {
  aimSchema, aimTiesSchema, dareSchema, lewisSchema, rainSchema, resolvedCraneSettingsSchema, slerpSchema, taskArithmeticSchema, tiesSchema,
} from '../protocol/settings-schemas.ts';
import { EMBEDDED_ANALYSIS_FILES } from './recipe-analysis.ts';
import { IMPORTANCE_COPIES, importanceRolesOf } from './recipe-importance.ts';
import { migrateRecipe } from './recipe-migration.ts';

export const RECIPE_FILE = 'crane_recipe.json';
export const RECIPE_FORMAT = 'crane-recipe';
/** 4: AIM-TA, AIM-TIES and LEWIS, with their importance files (recipe-migration.ts reads 1–3). */
export const RECIPE_FORMAT_VERSION = 4;

const sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
const hashesSchema = z.record(z.string(), sha256Schema);
/** The methods a recipe can rebuild, with their settings. */
export const recipeMethodSchema = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('crane'), settings: resolvedCraneSettingsSchema }),
  taskArithmeticSchema, tiesSchema, slerpSchema, dareSchema, aimSchema, aimTiesSchema, lewisSchema, rainSchema,
]);

const importanceEntry = (copies: readonly [string, ...string[]]) => z.strictObject({ sha256: sha256Schema, file: z.enum(copies) });
const importanceSchema = z.strictObject({
  aim: importanceEntry(IMPORTANCE_COPIES.aim).optional(),
  lewisBase: importanceEntry(IMPORTANCE_COPIES.lewisBase).optional(),
  lewisTuned: importanceEntry(IMPORTANCE_COPIES.lewisTuned).optional(),
});

const embeddedSchema = z.strictObject(
  Object.fromEntries(Object.entries(EMBEDDED_ANALYSIS_FILES).map(([name, copy]) => [name, z.literal(copy)])),
);

export const exportDtypeSchema = z.enum(['source', 'F32', 'F16', 'BF16']);

const recipeSchema = z.strictObject({
  format: z.literal(RECIPE_FORMAT),
  formatVersion: z.literal(RECIPE_FORMAT_VERSION),
  engineVersion: z.string(),
  method: recipeMethodSchema,
  /**
   * Hashes of the analysis artifacts the edit reads; null when it reads none. `embedded`: each
   * artifact's byte-for-byte copy in the export folder, by artifact name (absent in recipes
   * written before exports carried them: those reproduce with the analysis folder only).
   */
  analysis: z.strictObject({ files: hashesSchema, embedded: embeddedSchema.optional() }).nullable(),
  /** The importance files of AIM (`aim`) or LEWIS (`lewisBase`, `lewisTuned`): hash and copy name; null for the other methods. */
  importance: importanceSchema.nullable(),
  /**
   * RAIN's Base checkpoint and its two calibration files (the reasoning and instruction sets,
   * hashed); present exactly for RAIN (engine/pipeline/rain-export.ts).
   */
  inputs: z.strictObject({
    instruct: z.strictObject({ files: hashesSchema }),
    thinking: z.strictObject({ files: hashesSchema }),
    base: z.strictObject({ files: hashesSchema }).optional(),
    rainCalibration: z.strictObject({ reasoning: sha256Schema, instructions: sha256Schema }).optional(),
  }),
  output: z.strictObject({ dtype: exportDtypeSchema, maxShardBytes: z.int().positive() }),
}).superRefine((recipe, ctx) => {
  const rain = recipe.method.method === 'rain';
  if (rain !== (recipe.inputs.base !== undefined) || rain !== (recipe.inputs.rainCalibration !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['inputs'], message: 'a RAIN recipe, and only one, carries the Base checkpoint and the RAIN calibration files' });
  }
  const want = importanceRolesOf(recipe.method);
  const have = recipe.importance === null ? null : Object.keys(recipe.importance);
  if (want.length === 0 ? have === null : have !== null && want.length === have.length && want.every((role) => have.includes(role))) return;
  const needs = want.length === 0 ? 'no importance files (null)' : `the importance files ${want.join(', ')}`;
  ctx.addIssue({ code: 'custom', path: ['importance'], message: `a recipe for ${recipe.method.method} carries ${needs}` });
});

export type Recipe = z.infer<typeof recipeSchema>;
export type RecipeMethod = Recipe['method'];
export type ExportDtype = z.infer<typeof exportDtypeSchema>;

export function parseRecipe(json: unknown, file = RECIPE_FILE): Recipe {
  const parsed = recipeSchema.safeParse(migrateRecipe(json, file));
  if (!parsed.success) throw new CheckpointError('metadata', file, `is not a valid recipe: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
