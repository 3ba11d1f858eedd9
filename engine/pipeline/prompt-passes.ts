/**
 * Forward passes over calibration prompts in batches, streaming each prompt's per-Linear input
 * statistic (model.linearInputMeans): what AIM's and LEWIS's importance measurements share.
 *
 *   await forEachLinearInputMean(model, prompts, options, statistic, label, visit)
 *
 * `visit` gets the means and the prompt they belong to; progress is reported after each layer of
 * each pass as "LABEL pass i/n, layer l".
 */
import type { CausalLM } from '../model/causal-lm.ts';
import type { LinearInputMeans, LinearInputStatistic } from '../model/linear-inputs.ts';

export interface PromptPassOptions {
  /** Prompts per forward pass (each pass reads every layer once). */
  readonly batch: number;
  /** Called after each layer of each pass with the fraction done. */
  readonly onProgress?: (fraction: number, text: string) => void;
}

export async function forEachLinearInputMean(
  model: CausalLM, prompts: readonly number[][], options: PromptPassOptions, statistic: LinearInputStatistic, label: string,
  visit: (means: LinearInputMeans, prompt: readonly number[]) => void,
): Promise<void> {
  // A zero or fractional batch would make the pass count infinite or skip prompts.
  if (!(Number.isInteger(options.batch) && options.batch >= 1)) throw new RangeError(`batch ${options.batch} must be a whole number ≥ 1`);
  const passes = Math.ceil(prompts.length / options.batch);
  for (let pass = 0; pass < passes; pass++) {
    const batch = prompts.slice(pass * options.batch, (pass + 1) * options.batch);
    await model.linearInputMeans(batch, (m) => {
      visit(m, batch[m.sequence] as number[]);
      options.onProgress?.((pass + (m.layer + 1) / model.spec.numLayers) / passes, `${label} pass ${pass + 1}/${passes}, layer ${m.layer}`);
    }, statistic);
  }
}
