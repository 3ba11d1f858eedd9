/**
 * The AIM importance file, measured as the reference's baseline/aim_importance.py does: on the
 * Instruct model, a forward pass per calibration prompt (D_R and D_A, the train split — the set
 * the gradients use, as the reference reuses CRANE's calibration set), each prompt the chat up to
 * its first generated token (the templated prompt with the generation prompt, no answer) cut at
 * 512 tokens; per Linear input, the mean over the prompt's positions of |x|, then the mean over
 * prompts.
 *
 *   aimPrompts(sequences)                           → token ids of each prompt
 *   computeAimImportance(model, prompts, options)   → module name → (in_features) vector
 *   writeAimImportance(path, importance) / readAimImportance(path)
 *   readAnalysisAimImportance(analysisDir)          the file the projectors stage of that analysis wrote
 *
 * The file is safetensors, F32 (the reference's dtype), one 1-D tensor per Linear named by its
 * module (`model.layers.0.self_attn.o_proj`), sorted by name so equal values give equal bytes.
 */
import { join } from 'node:path';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { AimImportanceAccumulator } from '../crane/aim.ts';
import type { CausalLM } from '../model/causal-lm.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { forEachLinearInputMean, type PromptPassOptions } from './prompt-passes.ts';

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

export async function computeAimImportance(model: CausalLM, prompts: readonly number[][], options: PromptPassOptions): Promise<Map<string, Float64Array>> {
  const accumulator = new AimImportanceAccumulator();
  await forEachLinearInputMean(model, prompts, options, 'abs', 'AIM', (m) => accumulator.addSequence(m.means));
  return accumulator.importance();
}

export async function writeAimImportance(path: string, importance: ReadonlyMap<string, Float64Array>): Promise<void> {
  const names = [...importance.keys()].sort();
  await writeSafetensors(path, names.map((name) => {
    const values = importance.get(name) as Float64Array;
    return { spec: { name, dtype: 'F32' as const, shape: [values.length] }, data: Float32Array.from(values) };
  }));
}

export async function readAimImportance(path: string): Promise<Map<string, Float32Array>> {
  const file = await SafetensorsFile.open(path);
  try {
    const out = new Map<string, Float32Array>();
    for (const name of file.tensors.keys()) {
      if (file.info(name).shape.length !== 1) throw new CheckpointError('shape', path, 'is not a 1-D AIM importance vector', name);
      out.set(name, await file.readFloat32(name));
    }
    if (out.size === 0) throw new CheckpointError('shape', path, 'holds no AIM importance vectors (the analysis had no D_R or D_A prompt)');
    return out;
  } finally {
    await file.close();
  }
}

export function readAnalysisAimImportance(analysisDir: string): Promise<Map<string, Float32Array>> {
  return readAimImportance(join(pipelinePaths(analysisDir).projectors, AIM_IMPORTANCE_FILE));
}
