/**
 * withHeapValues(tensor, use): a float32 tensor's values handed to `use` without a copy where
 * the backend allows it.
 * copyValues(tensor, out) → out's first tensor.size values: the values copied straight from the
 * heap into an array the caller reuses (model/weights.ts checkpointLayerGrads' lent gradients).
 *
 * On wasm, dataSync() slices the values out of the module's heap into a fresh ArrayBuffer: for
 * the head's [vocab chunk, rows] logits that copy (mostly first touch of the new pages) cost more
 * than reading them (issue 14 profile: 63 ms for a 13 MB chunk that the cross-entropy loops then
 * walk in 40 ms). There the values are a view of the heap, valid only while `use` runs: `use`
 * must not keep the view nor call tfjs (an allocation may grow the heap, which detaches the view).
 * Other backends get dataSync()'s copy.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

/** A float32 tensor's values copied into `out` (at least as long), read in place (withHeapValues): no fresh array. Returns `out`'s first tensor.size values. */
export function copyValues(tensor: tf.Tensor, out: Float32Array): Float32Array {
  if (out.length < tensor.size) throw new RangeError(`${tensor.size} values do not fit an array of ${out.length}`);
  return withHeapValues(tensor, (values) => {
    const into = out.subarray(0, values.length);
    into.set(values);
    return into;
  });
}

export function withHeapValues<T>(tensor: tf.Tensor, use: (values: Float32Array) => T): T {
  if (tensor.dtype !== 'float32') throw new TypeError(`withHeapValues reads float32 tensors, not ${tensor.dtype}`);
  if (tf.getBackend() !== 'wasm') return use(tensor.dataSync() as Float32Array);
  return use((tf.backend() as BackendWasm).typedArrayFromHeap(tensor) as Float32Array);
}
