/**
 * The differentiable building blocks of a Llama-family decoder, as plain tfjs expressions (so
 * tf.grads can differentiate any composition of them): RMSNorm, linear layers on weights in
 * compute layout [in, out], SwiGLU, and rotate-half RoPE from precomputed half-width cos/sin tables.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMul } from '../tensor/matmul.ts';

/** HF RMSNorm over the last axis: w · x / sqrt(mean(x²) + eps). */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor1D, eps: number): T {
  const variance = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight) as T;
}

/**
 * y = x·W (+ b) with W in compute layout [in, out] (the checkpoint's [out, in] transposed once
 * at load: plain products are what wasm runs fast). `wOut`, the same weight as stored [out, in],
 * lets the backward compute dx = dy·wOut without transposing W on every call.
 */
export function linear(x: tf.Tensor2D, w: tf.Tensor2D, bias?: tf.Tensor1D, wOut?: tf.Tensor2D): tf.Tensor2D {
  const y: tf.Tensor2D = wOut === undefined ? tf.matMul(x, w) : productWithKnownTranspose(x, w, wOut);
  return bias === undefined ? y : tf.add<tf.Tensor2D>(y, bias);
}

function productWithKnownTranspose(x: tf.Tensor2D, w: tf.Tensor2D, wOut: tf.Tensor2D): tf.Tensor2D {
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [xx, ww, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
    save([xx]);
    return {
      value: tf.matMul(xx, ww),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [tf.matMul(dy as tf.Tensor2D, wOut), matMul(saved[0] as tf.Tensor2D, dy, true, false)],
    };
  });
  return op(x, w) as tf.Tensor2D;
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
