/**
 * From a recipe's method to the PairedEdit that produces θ_M, with the analysis and importance it reads.
 *
 *   needsAnalysis(method) → whether the edit reads a gate table or projectors
 *   methodEdit(method, context, importance) → PairedEdit
 *   isElementwise(method) → whether that edit may be applied to any slices of a tensor pair
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

/**
 * Whether the method's θ_M[i] depends on θ_I[i] and θ_T[i] alone (not on the shape, the name or
 * other elements) and its edit gives no note: then the export may edit a tensor block by block
 * (elementwise-tensor.ts). Task arithmetic only: TIES, LEWIS and CRANE threshold over the whole
 * tensor, DARE draws a per-tensor stream in order, SLERP and AIM work by rows or columns, and
 * CRANE's embedding and lm_head rules by token rows.
 */
export function isElementwise(method: RecipeMethod): boolean {
  return method.method === 'task_arithmetic';
}

export function methodEdit(method: RecipeMethod, context: CraneContext | null, importance: ImportanceValues | null): PairedEdit {
  if (method.method !== 'crane') return baselineEdit(withImportance(method, importance));
  if (context === null && needsAnalysis(method)) throw new RangeError('CRANE with the gate or GSP on needs an analysis (gate table and projectors)');
  return craneEdit(method.settings, context ?? { gate: null, projector: () => undefined });
}
