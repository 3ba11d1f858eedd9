/**
 * Checks that run before an analysis writes anything, so a pair that cannot be analysed ends
 * with a clear message and no output folder.
 *
 *   assertAnalysablePair(instruct, thinking, options) throws CheckpointError when
 *   - the pair report has errors (different hidden size, layer count, vocabulary, token ids, …),
 *   - the runtime cannot run the Instruct architecture (loadCausalLM refuses it),
 *   - any floating-point weight of either side is NaN or ±Inf (gradients and δ would carry it
 *     silently into every gate sum).
 * The finiteness scan (model/finite-weights.ts, shared with `crane score`) reads every tensor
 * once (one at a time): the price of refusing up front rather than after the gradient passes.
 */
import type { Checkpoint } from '../io/checkpoint.ts';
import { assertCompatiblePair } from '../io/pair-report.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { assertFiniteWeights } from '../model/finite-weights.ts';
import { throwIfCancelled } from './progress.ts';

export async function assertAnalysablePair(
  instruct: Checkpoint,
  thinking: Checkpoint,
  options: { signal?: AbortSignal; onFraction?: (fraction: number) => void } = {},
): Promise<void> {
  await assertCompatiblePair(instruct, thinking);
  loadCausalLM(instruct);
  await assertFiniteWeights([instruct, thinking], {
    outcome: 'nothing was analysed',
    beforeTensor: () => throwIfCancelled(options.signal, 'targets'),
    onFraction: options.onFraction,
  });
}
