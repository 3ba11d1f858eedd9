/**
 * withUploadBuffer(length, use): one reused float32 array to read values into right before
 * they are uploaded, where the upload copies them.
 *
 * A layer read from disk into fresh arrays pays a first-touch page fault on every 4 KiB of
 * them (issue 14 profile at Qwen3-0.6B shapes, 1 × 64 tokens: reading a 63 MB layer into fresh
 * arrays and uploading it cost 190–450 CPU ms, into a reused array 20–60 ms; the system time
 * of a forward+backward step was a fifth of it). On wasm tf.tensor() copies the values into the
 * module's heap before it returns, so the array is free again as soon as the tensor exists.
 * The other backends (cpu, tfjs-node, webgl) keep the array they are given as the tensor's
 * storage until later: there `use` gets no buffer and reads into a fresh array as before.
 *
 * One buffer per thread, grown to the largest length asked (one tensor: 12.6 MB at Qwen3-0.6B
 * shapes), lent to one caller at a time: a caller that asks while it is lent (reads awaited
 * side by side) gets a fresh array of its own, so no two reads ever share one.
 */
import * as tf from '@tensorflow/tfjs-core';

let spare: Float32Array | undefined;

/** Whether tf.tensor(values) has copied `values` by the time it returns on the active backend. */
export function uploadCopiesValues(): boolean {
  return tf.getBackend() === 'wasm';
}

/**
 * Runs `use` with an array of at least `length` values that is `use`'s alone until the promise
 * it returns settles (undefined where uploads keep their array): `use` must be done with it,
 * every upload made, by then, and must not hand it out.
 */
export async function withUploadBuffer<T>(length: number, use: (into: Float32Array | undefined) => Promise<T>): Promise<T> {
  if (!uploadCopiesValues()) return use(undefined);
  const lent = spare !== undefined && spare.length >= length ? spare : new Float32Array(length);
  if (lent === spare) spare = undefined;
  try {
    return await use(lent);
  } finally {
    if (spare === undefined || spare.length < lent.length) spare = lent;
  }
}
