/**
 * The shared tensors (shared-weights.ts) read by several workers at once in small chunks that
 * each worker claims as it goes, instead of one fixed part per worker.
 *
 *   const claims = sharedReadClaims()                 main thread: the same object in every worker's workerData
 *   const read = await fillClaimedParts(checkpoint, shared, claims)   each worker: chunks until none is left;
 *                                                                      resolves with how many it read
 *
 * Every worker needs every chunk before it computes, so the pool starts work when the last
 * worker has finished reading. With one part each, a worker that started later (its module graph,
 * its backend) made the others wait for its whole part (≈ 0.5–2 s per worker on the 2-core
 * machine); with chunks, a worker ready sooner reads more, and the last one finishes at most a
 * chunk after the others. A claim is an atomic increment of a counter in shared memory, so no
 * chunk is read twice or left out, whatever the timing. The values are the same bytes whoever
 * reads them (shared-weights.ts partRange: contiguous ranges covering the tensor).
 */
import type { Checkpoint } from '../io/checkpoint.ts';
import type { SharedTensor } from './gradient-worker-protocol.ts';
import { fillSharedPart } from './shared-weights.ts';

/**
 * Chunks per shared tensor: at Qwen3-0.6B shapes one chunk of the embedding is 39 MB of float32
 * (≈ 0.1 s to read and widen), small enough that the last worker is not long behind, few enough
 * that opening the file per chunk costs nothing.
 */
export const SHARED_READ_CHUNKS = 16;

export interface SharedReadClaims {
  /** One Int32: the next chunk to claim. */
  readonly next: SharedArrayBuffer;
  readonly chunks: number;
}

export function sharedReadClaims(chunks = SHARED_READ_CHUNKS): SharedReadClaims {
  return { next: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT), chunks };
}

export async function fillClaimedParts(checkpoint: Pick<Checkpoint, 'tensor' | 'location'>, shared: readonly SharedTensor[], claims: SharedReadClaims): Promise<number> {
  const next = new Int32Array(claims.next);
  let read = 0;
  for (let index = Atomics.add(next, 0, 1); index < claims.chunks; index = Atomics.add(next, 0, 1)) {
    await fillSharedPart(checkpoint, shared, { index, count: claims.chunks });
    read++;
  }
  return read;
}
