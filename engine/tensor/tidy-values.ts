/**
 * tidyValues(compute): the values of a tensor computed in a tf.tidy scope, read after the
 * scope has closed.
 *
 * Why not `tf.tidy(() => t.dataSync())`: tidy searches whatever its callback returns for
 * tensors to keep, and it walks a returned typed array index by index (for…in, each value
 * added to a Set). On a head chunk's [rows, vocab-chunk] logits that walk took 54% of a
 * Qwen3-0.6B-shaped analysis' CPU, more than every matmul of the model (issue 14 profile).
 */
import * as tf from '@tensorflow/tfjs-core';

export function tidyValues(compute: () => tf.Tensor): Float32Array {
  const tensor = tf.tidy(compute);
  try {
    return tensor.dataSync() as Float32Array;
  } finally {
    tensor.dispose();
  }
}
