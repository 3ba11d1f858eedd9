/**
 * The studio's edit settings → the settings an edit applies (one vocabulary, see
 * protocol/settings-schemas.ts; only the overrides change form here).
 *
 *   resolveCraneSettings(settings, columns, tokens) → ResolvedCraneSettings (protected-row edits applied)
 *   recipeMethodOf(method, crane) → RecipeMethod   the settings a recipe holds (every method; AIM's and
 *                                                  LEWIS's importance files travel beside them)
 *
 * Overrides name heatmap columns (block-columns.ts); each becomes a key of resolveScale's
 * override map with the S protocol/block-scale.ts's overrideScale gives it (a locked block 0,
 * so its crane-rule tensors keep θ_I exactly).
 */
import { blockKey } from '../crane/gate-accumulator.ts';
import { recipeMethodSchema, type RecipeMethod } from '../export/recipe.ts';
import { overrideScale } from '../protocol/block-scale.ts';
import { ProtocolError } from '../protocol/errors.ts';
import { applyProtectedEdits } from '../protocol/protected-tokens.ts';
import { DEFAULT_EDIT_ARITHMETIC } from '../protocol/settings-defaults.ts';
import type { CraneSettings, MergeMethod, ResolvedCraneSettings, TokenRows } from '../protocol/settings-schemas.ts';
import type { BlockColumns } from './block-columns.ts';

export type ResolveCrane = (settings: CraneSettings) => ResolvedCraneSettings;

export interface ColumnSets {
  readonly coarse: BlockColumns;
  readonly fine: BlockColumns;
}

/** `tokens` are the tokenizer's rows; the user's protected-row edits are applied here. */
export function resolveCraneSettings(settings: CraneSettings, columns: ColumnSets | null, tokens: TokenRows): ResolvedCraneSettings {
  const { overrides, ...knobs } = settings;
  const special = applyProtectedEdits(tokens.special, knobs.special.protectedTokens);
  // A project saved before the arithmetic setting existed edits in f32; the recipe says so explicitly.
  const arith = knobs.arith ?? DEFAULT_EDIT_ARITHMETIC;
  return { ...knobs, arith, overrideScales: overrideScales(overrides, columns), tokens: { think: tokens.think, special } };
}

/** Column overrides → S by block key; overrides of columns this analysis does not have are dropped. */
function overrideScales(overrides: CraneSettings['overrides'], columns: ColumnSets | null): Record<string, number> {
  const scales: Record<string, number> = {};
  for (const override of overrides) {
    const scale = overrideScale(override);
    const target = columns?.coarse.blockOf(override.block.group) ?? columns?.fine.blockOf(override.block.group);
    if (scale === undefined || target === undefined) continue;
    scales[blockKey({ group: target.group, block: target.block, layer: override.block.layer })] = scale;
  }
  return scales;
}

/** A method no recipe can hold yet is refused by name (the protocol may list more methods than recipes do). */
export function recipeMethodOf(method: MergeMethod, crane: ResolveCrane): RecipeMethod {
  if (method.method === 'crane') return { method: 'crane', settings: crane(method.settings) };
  const parsed = recipeMethodSchema.safeParse(method);
  if (!parsed.success) throw new ProtocolError('not-implemented', `${method.method} merges cannot be exported yet (crane_recipe.json has no place for them)`);
  return parsed.data;
}
