/**
 * Everything an edit of the open project needs, from a protocol merge method: the engine's
 * EditMethod (the CRANE settings carry Instruct's think/special token rows, overrides resolved
 * on the analysis' columns), the CraneContext (gate table and projectors) and, for AIM, the
 * importance file of the analysis (aim-importance.ts). The analysis is required exactly when
 * the method reads it (CRANE with the gate or GSP on, AIM-TA, AIM-TIES); the other baselines
 * work on a pair that was never analysed.
 */
import type { CraneContext } from '../crane/crane-edit.ts';
import type { EditMethod } from '../pipeline/edit-method.ts';
import { isAimMethod } from '../crane/aim.ts';
import { readAnalysisAimImportance } from '../pipeline/aim-importance.ts';
import type { CraneSettings, MergeMethod } from '../protocol/settings-schemas.ts';
import { editMethodOf, resolveCraneSettings } from './edit-settings.ts';
import type { EngineSession, LoadedAnalysis } from './engine-session.ts';

export interface MethodContext {
  readonly edit: EditMethod;
  readonly context: CraneContext | null;
  readonly analysis: LoadedAnalysis | null;
}

export function readsAnalysis(method: MergeMethod): boolean {
  return isAimMethod(method) || (method.method === 'crane' && (method.settings.stages.gate || method.settings.stages.gsp));
}

export async function methodContext(session: EngineSession, method: MergeMethod): Promise<MethodContext> {
  const analysis = readsAnalysis(method) ? await session.analysis() : await session.analysis().catch(() => null);
  const tokens = await session.tokenRows();
  const crane = (settings: CraneSettings) => resolveCraneSettings(settings, analysis?.columns ?? null, tokens);
  const aimImportance = isAimMethod(method) && analysis !== null ? await readAnalysisAimImportance(analysis.analysisDir) : undefined;
  const context = analysis === null ? null : { gate: analysis.artifacts.gate, projector: (key: string) => analysis.artifacts.projectors.get(key) };
  return { edit: editMethodOf(method, crane, aimImportance), context, analysis };
}
