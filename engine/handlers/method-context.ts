/**
 * Everything an edit of the open project needs, from a protocol merge method.
 *
 *   methodInputs(session, method, job?) → { method, analysis, importance }   what export takes
 *   methodContext(session, method, job?) → { edit, context, analysis }       what verify and the views take
 *
 * `method` is the settings as a recipe holds them (CRANE's carry Instruct's think/special token
 * rows, overrides resolved on the analysis' columns); `importance` names the analysis' files AIM or
 * LEWIS read (pipeline/importance-source.ts: LEWIS's are measured on first use and cached); `edit` is the engine's
 * EditMethod with those files read; `context` the gate table and projectors. The analysis is
 * required exactly when the method reads it (CRANE with the gate or GSP on, AIM-TA, AIM-TIES,
 * LEWIS); the other baselines work on a pair that was never analysed.
 */
import type { CraneContext } from '../crane/crane-edit.ts';
import type { RecipeMethod } from '../export/recipe.ts';
import { loadEditImportance, withImportance, type ImportanceSource } from '../export/recipe-importance.ts';
import type { EditMethod } from '../pipeline/edit-method.ts';
import { analysisImportance } from '../pipeline/importance-source.ts';
import type { LewisStageOptions } from '../pipeline/lewis-importance-stage.ts';
import type { CraneSettings, MergeMethod } from '../protocol/settings-schemas.ts';
import { recipeMethodOf, resolveCraneSettings } from './edit-settings.ts';
import type { EngineSession, LoadedAnalysis } from './engine-session.ts';

export interface MethodInputs {
  readonly method: RecipeMethod;
  readonly analysis: LoadedAnalysis | null;
  readonly importance: ImportanceSource | undefined;
}

export interface MethodContext {
  readonly edit: EditMethod;
  readonly context: CraneContext | null;
  readonly analysis: LoadedAnalysis | null;
}

export function readsAnalysis(method: MergeMethod): boolean {
  if (method.method === 'crane') return method.settings.stages.gate || method.settings.stages.gsp;
  return method.method === 'aim' || method.method === 'aim_ties' || method.method === 'lewis';
}

/** `job`: the request's signal and progress, for LEWIS's first measurement on this analysis. */
export async function methodInputs(session: EngineSession, method: MergeMethod, job: LewisStageOptions = {}): Promise<MethodInputs> {
  const analysis = readsAnalysis(method) ? await session.analysis() : await session.analysis().catch(() => null);
  const tokens = await session.tokenRows();
  const settings = recipeMethodOf(method, (s: CraneSettings) => resolveCraneSettings(s, analysis?.columns ?? null, tokens));
  return { method: settings, analysis, importance: analysis === null ? undefined : await analysisImportance(method, analysis.analysisDir, job) };
}

export async function methodContext(session: EngineSession, method: MergeMethod, job: LewisStageOptions = {}): Promise<MethodContext> {
  const inputs = await methodInputs(session, method, job);
  const { analysis } = inputs;
  const context = analysis === null ? null : { gate: analysis.artifacts.gate, projector: (key: string) => analysis.artifacts.projectors.get(key) };
  if (inputs.method.method === 'crane') return { edit: inputs.method, context, analysis };
  const importance = inputs.importance === undefined ? null : await loadEditImportance(inputs.method, inputs.importance);
  return { edit: withImportance(inputs.method, importance?.values ?? null), context, analysis };
}
