/**
 * Checks that run before an analysis writes anything, so a pair that cannot be analysed ends
 * with a clear message and no output folder.
 *
 *   assertAnalysablePair(instruct, thinking, options) throws CheckpointError when
 *   - the pair report has errors (different hidden size, layer count, vocabulary, token ids, …),
 *   - the runtime cannot run the Instruct architecture (loadCausalLM refuses it),
 *   - any floating-point weight of either side is NaN or ±Inf (gradients and δ would carry it
 *     silently into every gate sum).
 * The finiteness scan reads every tensor once (one at a time): the price of refusing up front
 * rather than after the gradient passes.
 */
import { join } from 'node:path';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { isFloatDType } from '../io/dtype.ts';
import { assertCompatiblePair } from '../io/pair-report.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { throwIfCancelled } from './progress.ts';

export async function assertAnalysablePair(
  instruct: Checkpoint,
  thinking: Checkpoint,
  options: { signal?: AbortSignal; onFraction?: (fraction: number) => void } = {},
): Promise<void> {
  await assertCompatiblePair(instruct, thinking);
  loadCausalLM(instruct);
  const tensors = [instruct, thinking].flatMap((c) => [...c.tensors.values()].filter((t) => isFloatDType(t.dtype)).map((t) => ({ c, t })));
  for (const [i, { c, t }] of tensors.entries()) {
    throwIfCancelled(options.signal, 'targets');
    const values = await c.readFloat32(t.name);
    for (let j = 0; j < values.length; j++) {
      const v = values[j] as number;
      if (!Number.isFinite(v)) throw new CheckpointError('non-finite', join(c.dir, t.shard), `contains ${v} at flat index ${j}; nothing was analysed`, t.name);
    }
    options.onFraction?.((i + 1) / tensors.length);
  }
}
