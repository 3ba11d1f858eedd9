/**
 * Refusing NaN and ±Inf weights before anything uses them.
 *
 *   await assertFiniteWeights(checkpoints, {outcome, beforeTensor?, onFraction?})
 *
 * One NaN weight turns every logit, loss and gradient downstream into NaN, and a run would end
 * "successfully" with NaN results. So analysis (pipeline/preflight.ts) and `crane score` scan
 * every floating-point tensor once, one at a time, and stop at the first non-finite value with a
 * CheckpointError naming the shard file, the tensor and the index; `outcome` says what was not
 * done ("nothing was analysed"). `beforeTensor` may throw (cancellation).
 */
import { join } from 'node:path';
import type { Checkpoint } from '../io/checkpoint.ts';
import { isFloatDType } from '../io/dtype.ts';
import { assertFiniteValues } from '../io/finite-values.ts';

export interface FiniteScanOptions {
  readonly outcome: string;
  readonly beforeTensor?: () => void;
  readonly onFraction?: (fraction: number) => void;
}

export async function assertFiniteWeights(checkpoints: readonly Checkpoint[], options: FiniteScanOptions): Promise<void> {
  const tensors = checkpoints.flatMap((c) => [...c.tensors.values()].filter((t) => isFloatDType(t.dtype)).map((t) => ({ c, t })));
  for (const [i, { c, t }] of tensors.entries()) {
    options.beforeTensor?.();
    assertFiniteValues(await c.readFloat32(t.name), join(c.dir, t.shard), t.name, 'contains', options.outcome);
    options.onFraction?.((i + 1) / tensors.length);
  }
}
