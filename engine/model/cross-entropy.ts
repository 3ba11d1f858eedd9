/**
 * Σ_rows CE(logits_r, label_r) as a differentiable tfjs expression, for the whole-model graph
 * (whole-model.ts: the demo pair's training and the reference of the layer-wise backward). The
 * layer-wise runtime goes through head-loss.ts instead, which never holds whole logit rows.
 *
 * Written so that a dominant logit loses nothing in float32, as tf.logSoftmax does on wasm
 * (its Sum adds terms in order and drops those below half an ulp of the leading 1):
 *   - log Σ exp: max + log1p(Σ over the non-maximal terms + (ties − 1)), the 1 kept apart;
 *   - CE = (max − z_label) + that log1p, never lse − z_label (≈ 20 − 20 in float32);
 *   - gradient (custom): p_j for j ≠ label and −Σ_{j≠label} p_j for the label, never p − 1.
 */
import * as tf from '@tensorflow/tfjs-core';

export function crossEntropySum(logits: tf.Tensor2D, labels: readonly number[]): tf.Scalar {
  // Made again inside gradFunc: a tensor captured here is disposed by the time tf.grads runs it.
  const oneHot = (): tf.Tensor => tf.oneHot(tf.tensor1d([...labels], 'int32'), logits.shape[1]);
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [z, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const { max, log1pRest } = logSumExpParts(z);
    save([z, max, log1pRest]);
    // CE = (max − z_label) + log1p(…): the first difference is exact (0 when the label is the max),
    // so a dominant target's small loss is not the float32 remainder of lse − z_label ≈ 20 − 20.
    const gap = tf.sub(max, tf.sum(tf.mul(z, oneHot()), 1, true));
    return {
      value: tf.sum(tf.add(gap, log1pRest)),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [zs, maxes, log1pRests] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
        const mask = oneHot();
        // (z − max) − log1p(…), not z − lse: lse ≈ 20 carries an ulp of 2·10⁻⁶ into every p_j.
        const others = tf.mul(tf.exp(tf.sub(tf.sub(zs, maxes), log1pRests)), tf.sub(1, mask));
        const labelGrad = tf.mul(tf.neg(tf.sum(others, 1, true)), mask);
        return [tf.mul(dy, tf.add(others, labelGrad))];
      },
    };
  });
  return op(logits) as tf.Scalar;
}

/** log Σ_j exp(z_j) per row as max + log1pRest, both [rows, 1]. */
function logSumExpParts(z: tf.Tensor2D): { max: tf.Tensor2D; log1pRest: tf.Tensor2D } {
  const max = tf.max<tf.Tensor2D>(z, 1, true);
  const isMax = tf.cast(tf.equal(z, max), 'float32');
  const rest = tf.sum(tf.mul(tf.exp(tf.sub(z, max)), tf.sub(1, isMax)), 1, true);
  return { max, log1pRest: log1p(tf.add(rest, tf.sub(tf.sum(isMax, 1, true), 1))) };
}

/**
 * log(1 + u) accurate for small u (Kahan: log(w)·u / (w − 1), w = 1 + u rounded): wasm's Log1p
 * computes log(1 + u) as written, 9·10⁻⁵ off at u = 3·10⁻⁴.
 */
function log1p(u: tf.Tensor2D): tf.Tensor2D {
  const w = tf.add(1, u);
  const spread = tf.sub(w, 1);
  return tf.where(tf.equal(spread, 0), u, tf.div(tf.mul(tf.log(w), u), spread));
}
