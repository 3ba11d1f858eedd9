/**
 * From a recipe's method to the PairedEdit that produces θ_M, with the analysis and importance it reads.
 *
 *   needsAnalysis(method) → whether the edit reads a gate table or projectors
 *   methodEdit(method, context, importance) → PairedEdit
 *   methodBlockEdits(method) → BlockEdits: per tensor, the edit a block of values at a time, where the method allows it
 *
 * CRANE with the gate or GSP on needs the analysis (recipe-analysis.ts loads it), AIM and LEWIS
 * their importance files (recipe-importance.ts); refusing to run without them (rather than
 * falling back to S = 1, no projection or plain TIES) keeps an export from silently not being the
 * edit its recipe names.
 */
import { baselineEdit } from '../crane/baselines.ts';
import { craneBlockEdit, craneEdit, type BlockEdit, type CraneContext } from '../crane/crane-edit.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { RecipeMethod } from './recipe.ts';
import { withImportance, type ImportanceValues } from './recipe-importance.ts';

export function needsAnalysis(method: RecipeMethod): boolean {
  return method.method === 'crane' && (method.settings.stages.gate || method.settings.stages.gsp);
}

/** Tensor by tensor, its edit a block of values at a time (θ_M over a range from θ_I and θ_T over it alone), or undefined where the method needs the whole tensor. */
export type BlockEdits = (name: string, shape: readonly number[]) => BlockEdit | undefined;

/**
 * Where the export may edit a tensor block by block (elementwise-tensor.ts), with the values
 * methodEdit(method, …) gives: every tensor of task arithmetic (θ_M[i] from θ_I[i] and θ_T[i]
 * alone, and no note), CRANE's embedding and lm_head (each row's rule reads that row alone:
 * crane-edit.ts craneBlockEdit). Not TIES, LEWIS or CRANE's other tensors (they threshold over
 * the whole tensor), DARE (a per-tensor stream drawn in order), SLERP and AIM (by rows or columns).
 * Neither block edit reads an analysis or importance, so the method alone says what they are.
 */
export function methodBlockEdits(method: RecipeMethod): BlockEdits {
  switch (method.method) {
    case 'task_arithmetic': {
      const edit = baselineEdit(method);
      return (name, shape) => (thetaI, thetaT) => edit(name, shape, thetaI, thetaT, true);
    }
    case 'crane': return (name, shape) => craneBlockEdit(method.settings, name, shape);
    default: return () => undefined;
  }
}

export function methodEdit(method: RecipeMethod, context: CraneContext | null, importance: ImportanceValues | null): PairedEdit {
  if (method.method !== 'crane') return baselineEdit(withImportance(method, importance));
  if (context === null && needsAnalysis(method)) throw new RangeError('CRANE with the gate or GSP on needs an analysis (gate table and projectors)');
  return craneEdit(method.settings, context ?? { gate: null, projector: () => undefined });
}
