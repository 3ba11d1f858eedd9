/**
 * From a recipe's method to the PairedEdit that produces θ_M, with the analysis it reads.
 *
 *   needsAnalysis(method) → whether the edit reads a gate table or projectors
 *   loadEditAnalysis(dir) → { context, files }   the CraneContext and the hashes of the files read
 *   methodEdit(method, context) → PairedEdit
 *
 * CRANE with the gate or GSP on needs the analysis; refusing to run without it (rather than
 * falling back to S = 1 or no projection) keeps an export from silently not being the edit its
 * recipe names. Only the gate table and the projectors are read: the preview coefficients play
 * no part in an edit.
 */
import { join } from 'node:path';
import { ANALYSIS_FILES } from '../analysis/analysis-store.ts';
import { readGateTable } from '../analysis/gate-table-file.ts';
import { readProjectors } from '../analysis/projector-file.ts';
import { baselineEdit } from '../crane/baselines.ts';
import { craneEdit, type CraneContext } from '../crane/crane-edit.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import { hashFiles } from './input-hashes.ts';
import type { RecipeMethod } from './recipe.ts';

export const EDIT_ANALYSIS_FILES = [ANALYSIS_FILES.gate, ANALYSIS_FILES.projectors] as const;

export function needsAnalysis(method: RecipeMethod): boolean {
  return method.method === 'crane' && (method.settings.stages.gate || method.settings.stages.gsp);
}

export async function loadEditAnalysis(dir: string, signal?: AbortSignal): Promise<{ context: CraneContext; files: Record<string, string> }> {
  const files = await hashFiles(dir, EDIT_ANALYSIS_FILES, { signal });
  const gate = await readGateTable(join(dir, ANALYSIS_FILES.gate));
  const projectors = await readProjectors(join(dir, ANALYSIS_FILES.projectors));
  return { context: { gate, projector: (key) => projectors.get(key) }, files };
}

export function methodEdit(method: RecipeMethod, context: CraneContext | null): PairedEdit {
  if (method.method !== 'crane') return baselineEdit(method);
  if (context === null && needsAnalysis(method)) throw new RangeError('CRANE with the gate or GSP on needs an analysis (gate table and projectors)');
  return craneEdit(method.settings, context ?? { gate: null, projector: () => undefined });
}
