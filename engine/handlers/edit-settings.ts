/**
 * The studio's edit settings → the settings an edit applies (one vocabulary, see
 * protocol/settings-schemas.ts; only the overrides change form here).
 *
 *   resolveCraneSettings(settings, columns, tokens) → ResolvedCraneSettings (protected-row edits applied)
 *   editMethodOf(method, crane, magnitudes?) → EditMethod       (verify: every method, AIM too)
 *   exportMethodOf(method, crane) → what exportMerge accepts     (AIM cannot be recipe'd yet)
 *
 * Overrides name heatmap columns (block-columns.ts); each becomes a key of resolveScale's
 * override map with the S protocol/block-scale.ts's overrideScale gives it (a locked block 0,
 * so its crane-rule tensors keep θ_I exactly).
 */
import { blockKey } from '../crane/gate-accumulator.ts';
import type { RecipeBaseline } from '../export/recipe.ts';
import { aimImportanceOf, isAimMethod } from '../crane/aim.ts';
import type { EditMethod } from '../pipeline/edit-method.ts';
import { overrideScale } from '../protocol/block-scale.ts';
import { ProtocolError } from '../protocol/errors.ts';
import { applyProtectedEdits } from '../protocol/protected-tokens.ts';
import { DEFAULT_EDIT_ARITHMETIC } from '../protocol/settings-defaults.ts';
import type { CraneSettings, MergeMethod, ResolvedCraneSettings, TokenRows } from '../protocol/settings-schemas.ts';
import type { BlockColumns } from './block-columns.ts';

type CraneMethod = { readonly method: 'crane'; readonly settings: ResolvedCraneSettings };
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

export function editMethodOf(method: MergeMethod, crane: ResolveCrane, aimImportance?: ReadonlyMap<string, Float32Array>): EditMethod {
  if (isAimMethod(method)) {
    if (aimImportance === undefined) throw new ProtocolError('not-found', 'AIM needs the importance file of an analysis: run Analyze first');
    return { ...method, importance: aimImportanceOf(aimImportance) };
  }
  return exportMethodOf(method, crane);
}

export function exportMethodOf(method: MergeMethod, crane: ResolveCrane): CraneMethod | RecipeBaseline {
  switch (method.method) {
    case 'crane': return { method: 'crane', settings: crane(method.settings) };
    case 'aim':
    case 'aim_ties': throw new ProtocolError('not-implemented', 'AIM merges cannot be exported yet (their importance file is not part of a recipe); Verify measures them');
    case 'lewis': throw new ProtocolError('not-implemented', 'LEWIS needs importance files of both models, which projects do not hold yet: use crane verify --method lewis --importance-base F --importance-tuned F');
    default: return method;
  }
}
