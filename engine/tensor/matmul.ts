/**
 * matMul that is fast on every backend. tfjs-backend-wasm only reaches its XNNPACK kernel for
 * plain, rank-2 products: a transposeA/transposeB flag costs about 10× (measured: 1.7 vs 21
 * GFLOP/s at 128×256·256×768), so on wasm (and cpu) transposes are materialised first — a
 * transpose is cheap next to the product. Other backends get the flags as they are.
 */
import * as tf from '@tensorflow/tfjs-core';

export function materialisesTransposes(): boolean {
  const backend = tf.getBackend();
  return backend === 'wasm' || backend === 'cpu';
}

/** Swaps the last two axes. */
export function transposeLast2(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const r = perm.length;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1] as number, perm[r - 2] as number];
  return tf.transpose(x, perm);
}

export function matMul<T extends tf.Tensor>(a: tf.Tensor, b: tf.Tensor, transposeA = false, transposeB = false): T {
  if (!materialisesTransposes() || (!transposeA && !transposeB)) return tf.matMul(a, b, transposeA, transposeB) as T;
  return tf.matMul(transposeA ? transposeLast2(a) : a, transposeB ? transposeLast2(b) : b) as T;
}
