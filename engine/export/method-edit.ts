/**
 * From a recipe's method to the PairedEdit that produces θ_M, with the analysis and importance it reads.
 *
 *   needsAnalysis(method) → whether the edit reads a gate table or projectors
 *   methodEdit(method, context, importance) → PairedEdit
 *
 * CRANE with the gate or GSP on needs the analysis (recipe-analysis.ts loads it), AIM and LEWIS
 * their importance files (recipe-importance.ts); refusing to run without them (rather than
 * falling back to S = 1, no projection or plain TIES) keeps an export from silently not being the
 * edit its recipe names.
 */
import { baselineEdit } from '../crane/baselines.ts';
import { craneEdit, type CraneContext } from '../crane/crane-edit.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { RecipeMethod } from './recipe.ts';
import { withImportance, type ImportanceValues } from './recipe-importance.ts';

export function needsAnalysis(method: RecipeMethod): boolean {
  return method.method === 'crane' && (method.settings.stages.gate || method.settings.stages.gsp);
}

export function methodEdit(method: RecipeMethod, context: CraneContext | null, importance: ImportanceValues | null): PairedEdit {
  if (method.method !== 'crane') return baselineEdit(withImportance(method, importance));
  if (context === null && needsAnalysis(method)) throw new RangeError('CRANE with the gate or GSP on needs an analysis (gate table and projectors)');
  return craneEdit(method.settings, context ?? { gate: null, projector: () => undefined });
}
