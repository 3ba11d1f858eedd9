/**
 * Refusing NaN and ±Inf weights before anything uses them.
 *
 *   await assertFiniteWeights(checkpoints, {outcome, beforeTensor?, onFraction?, chunkBytes?})
 *
 * One NaN weight turns every logit, loss and gradient downstream into NaN, and a run would end
 * "successfully" with NaN results. So analysis (pipeline/preflight.ts) and `crane score` scan
 * every floating-point tensor once, one at a time, and stop at the first non-finite value with a
 * CheckpointError naming the shard file, the tensor and the index; `outcome` says what was not
 * done ("nothing was analysed"). `beforeTensor` may throw (cancellation).
 *
 * The scan looks at the stored bit patterns (io/finite-values.ts assertFiniteStored), streamed
 * through one reused buffer of `chunkBytes`: nothing is widened to float32, so memory stays at
 * that buffer whatever the checkpoint — a 1.5 GB BF16 pair with a 151,936-row embedding and
 * lm_head used to allocate a fresh 622 MB float32 array for each of those four tensors.
 */
import { join } from 'node:path';
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import { isFloatDType, type FloatDType } from '../io/dtype.ts';
import { assertFiniteStored } from '../io/finite-values.ts';

/** Large enough that a read costs far more than its call, small enough to stay in cache-sized pieces of memory. */
const SCAN_CHUNK_BYTES = 4 << 20;

export interface FiniteScanOptions {
  readonly outcome: string;
  readonly beforeTensor?: () => void;
  readonly onFraction?: (fraction: number) => void;
  /** Bytes read at a time (a positive multiple of 8; default 4 MiB): tests use a few to cross chunk boundaries. */
  readonly chunkBytes?: number;
}

type FloatTensor = CheckpointTensor & { readonly dtype: FloatDType };

export async function assertFiniteWeights(checkpoints: readonly Checkpoint[], options: FiniteScanOptions): Promise<void> {
  const tensors = checkpoints.flatMap((c) => [...c.tensors.values()].filter((t): t is FloatTensor => isFloatDType(t.dtype)).map((t) => ({ c, t })));
  const scratch = new Uint8Array(options.chunkBytes ?? SCAN_CHUNK_BYTES);
  for (const [i, { c, t }] of tensors.entries()) {
    options.beforeTensor?.();
    const file = join(c.dir, t.shard);
    await c.streamRaw(t.name, scratch, (chunk, first) => assertFiniteStored(t.dtype, chunk, first, file, t.name, 'contains', options.outcome));
    options.onFraction?.((i + 1) / tensors.length);
  }
}
