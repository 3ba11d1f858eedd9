/**
 * From a recipe's method to the PairedEdit that produces θ_M, with the analysis it reads.
 *
 *   needsAnalysis(method) → whether the edit reads a gate table or projectors
 *   methodEdit(method, context) → PairedEdit
 *
 * CRANE with the gate or GSP on needs the analysis (recipe-analysis.ts loads it); refusing to run
 * without it (rather than falling back to S = 1 or no projection) keeps an export from silently
 * not being the edit its recipe names.
 */
import { baselineEdit } from '../crane/baselines.ts';
import { craneEdit, type CraneContext } from '../crane/crane-edit.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { RecipeMethod } from './recipe.ts';

export function needsAnalysis(method: RecipeMethod): boolean {
  return method.method === 'crane' && (method.settings.stages.gate || method.settings.stages.gsp);
}

export function methodEdit(method: RecipeMethod, context: CraneContext | null): PairedEdit {
  if (method.method !== 'crane') return baselineEdit(method);
  if (context === null && needsAnalysis(method)) throw new RangeError('CRANE with the gate or GSP on needs an analysis (gate table and projectors)');
  return craneEdit(method.settings, context ?? { gate: null, projector: () => undefined });
}
