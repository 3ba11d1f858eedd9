/**
 * The differentiable building blocks of a Llama-family decoder, as plain tfjs expressions (so
 * tf.grads can differentiate any composition of them): RMSNorm, linear layers on weights in
 * stored layout [out, in], SwiGLU, and rotate-half RoPE from precomputed half-width cos/sin tables.
 */
import * as tf from '@tensorflow/tfjs-core';
import { materialisesTransposes, matMul } from '../tensor/matmul.ts';

/** HF RMSNorm over the last axis: w · x / sqrt(mean(x²) + eps). */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor1D, eps: number): T {
  const variance = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight) as T;
}

/**
 * y = x·Wᵀ (+ b) with W as stored, [out, in], computed as (W·xᵀ)ᵀ: a plain product — the only
 * kind wasm runs fast — whose left operand is the weight, which XNNPACK uses as it is, while the
 * right operand it packs per call is the small [in, T] xᵀ. So a layer read from disk is used
 * without transposing its weights or packing them for the forward (issue 14 profile: at 1 × 64
 * tokens the per-read [out, in] → [in, out] transposes and packs cost more than the layer's
 * products). The gradient is written out: dx = dy·W (W packed once for the tensor's lifetime),
 * dW = dyᵀ·x in W's own layout; autodiff of the product above would transpose W per call.
 */
export function linear(x: tf.Tensor2D, w: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor2D {
  const y = timesStored(x, w);
  return bias === undefined ? y : tf.add<tf.Tensor2D>(y, bias);
}

/** x·Wᵀ for W [out, in] as stored, differentiable in x and W (see linear). */
function timesStored(x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D {
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [xx, ww, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
    save([xx, ww]);
    return {
      value: storedProduct(xx, ww),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [input, weight] = saved as [tf.Tensor2D, tf.Tensor2D];
        return [tf.matMul(dy as tf.Tensor2D, weight), matMul(dy, input, true, false)];
      },
    };
  });
  return op(x, w) as tf.Tensor2D;
}

/** x·Wᵀ for W [out, in], not differentiated: (W·xᵀ)ᵀ where products with a transposed operand are slow (matmul.ts), else the flag. */
export function storedProduct(x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D {
  return materialisesTransposes() ? tf.transpose(tf.matMul(w, tf.transpose(x))) : tf.matMul(x, w, false, true);
}

/** SwiGLU MLP: down( silu(gate(x)) · up(x) ). */
/** silu(gate_proj(x)) · up_proj(x): the down_proj input, [T, intermediate]. */
export function swigluHidden(x: tf.Tensor2D, proj: (name: 'gate_proj' | 'up_proj', input: tf.Tensor2D) => tf.Tensor2D): tf.Tensor2D {
  const g = proj('gate_proj', x);
  const silu = tf.mul<tf.Tensor2D>(g, tf.sigmoid(g));
  return tf.mul(silu, proj('up_proj', x));
}

/**
 * Rotate-half RoPE on x [T, heads, d] with cos/sin [T, 1, d/2] (angle tables for the T
 * positions): [x1·c − x2·s, x2·c + x1·s] — the same as x·cat(c,c) + rotate_half(x)·cat(s,s).
 */
export function applyRope(x: tf.Tensor3D, cos: tf.Tensor3D, sin: tf.Tensor3D): tf.Tensor3D {
  const [x1, x2] = tf.split(x, 2, -1) as [tf.Tensor3D, tf.Tensor3D];
  const first = tf.sub<tf.Tensor3D>(tf.mul(x1, cos), tf.mul(x2, sin));
  const second = tf.add<tf.Tensor3D>(tf.mul(x2, cos), tf.mul(x1, sin));
  return tf.concat<tf.Tensor3D>([first, second], -1);
}
