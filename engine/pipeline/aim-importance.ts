/**
 * The AIM importance file, measured as the reference's baseline/aim_importance.py does: on the
 * Instruct model, a forward pass per calibration prompt (D_R and D_A, the train split — the set
 * the gradients use, as the reference reuses CRANE's calibration set), each prompt the chat up to
 * its first generated token (the templated prompt with the generation prompt, no answer) cut at
 * 512 tokens; per Linear input, the mean over the prompt's positions of |x|, then the mean over
 * prompts.
 *
 *   aimPrompts(sequences)                           → token ids of each prompt
 *   aimImportanceMeasurement(prompts)               → { requests, result() }: module name → (in_features)
 *                                                     vector, measured in a pass shared with others
 *   analysisAimImportancePath(analysisDir)          the file the projectors stage of that analysis wrote
 *   readAnalysisAimImportance(analysisDir)          … read (crane/aim-importance-file.ts, the format)
 */
import { join } from 'node:path';
import { AimImportanceAccumulator } from '../crane/aim.ts';
import { readAimImportance } from '../crane/aim-importance-file.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { linearInputRequests } from './prompt-passes.ts';
import type { ForwardMeasurement } from './shared-forward.ts';

export const AIM_IMPORTANCE_FILE = 'aim-importance.safetensors';
/** aim_importance.py's --max-length default. */
export const AIM_MAX_TOKENS = 512;

export function aimPrompts(sequences: readonly CalibrationSequence[]): number[][] {
  return sequences
    .filter((s) => (s.set === 'reasoning' || s.set === 'agent') && s.split === 'train')
    .map((s) => {
      const firstTarget = s.lossMask?.indexOf(1) ?? -1;
      return s.ids.slice(0, Math.min(firstTarget < 0 ? s.ids.length : firstTarget, AIM_MAX_TOKENS));
    })
    .filter((ids) => ids.length > 0);
}

/** Module name → (in_features) vector, once the requests have gone through the model (shared-forward.ts). */
export function aimImportanceMeasurement(prompts: readonly (readonly number[])[]): ForwardMeasurement<Map<string, Float64Array>> {
  const accumulator = new AimImportanceAccumulator();
  return { requests: linearInputRequests(prompts, 'abs', (m) => accumulator.addSequence(m.means)), result: () => accumulator.importance() };
}

/** Where the projectors stage of an analysis folder keeps its AIM importance file. */
export function analysisAimImportancePath(analysisDir: string): string {
  return join(pipelinePaths(analysisDir).projectors, AIM_IMPORTANCE_FILE);
}

export function readAnalysisAimImportance(analysisDir: string): Promise<Map<string, Float32Array>> {
  return readAimImportance(analysisAimImportancePath(analysisDir));
}
