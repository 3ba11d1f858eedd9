/**
 * Forward passes over calibration prompts in batches, streaming each prompt's per-Linear input
 * statistic (model/linear-inputs.ts): what AIM's and LEWIS's importance measurements share.
 *
 *   await forEachLinearInputMean(model, prompts, options, statistic, label, visit)
 *   linearInputRequests(prompts, statistic, visit)   the same prompts as requests of a shared pass
 *
 * `visit` gets the means (their `sequence` is the prompt's index) and the prompt they belong to;
 * progress is reported after each layer of each pass as "LABEL pass i/n, layer l".
 */
import type { CausalLM } from '../model/causal-lm.ts';
import type { LinearInputMeans, LinearInputStatistic } from '../model/linear-inputs.ts';
import { meansRequest, type ForwardRequest } from './forward-requests.ts';
import { runSharedForward } from './shared-forward.ts';

export interface PromptPassOptions {
  /** Prompts per forward pass (each pass reads every layer once). */
  readonly batch: number;
  /** Called after each layer of each pass with the fraction done. */
  readonly onProgress?: (fraction: number, text: string) => void;
}

type MeansVisitor = (means: LinearInputMeans, prompt: readonly number[]) => void;

export function linearInputRequests(prompts: readonly (readonly number[])[], statistic: LinearInputStatistic, visit: MeansVisitor): ForwardRequest[] {
  return prompts.map((ids, i) => meansRequest(ids, statistic, i, (m) => visit(m, ids)));
}

export async function forEachLinearInputMean(
  model: CausalLM, prompts: readonly number[][], options: PromptPassOptions, statistic: LinearInputStatistic, label: string, visit: MeansVisitor,
): Promise<void> {
  await runSharedForward(model, [linearInputRequests(prompts, statistic, visit)], { ...options, label });
}
