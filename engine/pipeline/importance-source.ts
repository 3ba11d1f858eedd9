/**
 * The importance files an analysis holds for the methods that read them, as an export or an edit
 * takes them (export/recipe-importance.ts's ImportanceSource).
 *
 *   analysisImportance(method, analysisDir, job?) → ImportanceSource | undefined
 *
 * AIM-TA / AIM-TIES: the projectors stage's aim-importance.safetensors. LEWIS: both models' files,
 * measured on first use and cached (lewis-importance-stage.ts; `job` carries that measurement's
 * cancel and progress). Other methods read none. Shared by the handlers (the UI's Verify and
 * Export), `crane merge --analysis` and the demo eval.
 */
import type { ImportanceSource } from '../export/recipe-importance.ts';
import { analysisAimImportancePath } from './aim-importance.ts';
import { analysisLewisImportance, type LewisStageOptions } from './lewis-importance-stage.ts';

const WHAT = 'the analysis folder';

export async function analysisImportance(method: { readonly method: string }, analysisDir: string, job: LewisStageOptions = {}): Promise<ImportanceSource | undefined> {
  if (method.method === 'aim' || method.method === 'aim_ties') return { paths: { aim: analysisAimImportancePath(analysisDir) }, what: WHAT };
  if (method.method === 'lewis') return { paths: await analysisLewisImportance(analysisDir, job), what: WHAT };
  return undefined;
}
