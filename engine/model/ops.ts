/**
 * The differentiable building blocks of a Llama-family decoder, as plain tfjs expressions (so
 * tf.grads can differentiate any composition of them): RMSNorm, linear layers with PyTorch
 * weight layout, SwiGLU, and rotate-half RoPE from precomputed half-width cos/sin tables.
 */
import * as tf from '@tensorflow/tfjs-core';

/** HF RMSNorm over the last axis: w · x / sqrt(mean(x²) + eps). */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor1D, eps: number): T {
  const variance = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight) as T;
}

/** y = x·Wᵀ (+ b) with W stored PyTorch-style as [out, in]. */
export function linear(x: tf.Tensor2D, weight: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor2D {
  const y: tf.Tensor2D = tf.matMul(x, weight, false, true);
  return bias === undefined ? y : tf.add<tf.Tensor2D>(y, bias);
}

/** SwiGLU MLP: down( silu(gate(x)) · up(x) ). */
export function swiglu(
  x: tf.Tensor2D,
  gate: tf.Tensor2D,
  up: tf.Tensor2D,
  down: tf.Tensor2D,
  bias?: { gate?: tf.Tensor1D; up?: tf.Tensor1D; down?: tf.Tensor1D },
): tf.Tensor2D {
  const g = linear(x, gate, bias?.gate);
  const silu = tf.mul(g, tf.sigmoid(g));
  return linear(tf.mul(silu, linear(x, up, bias?.up)), down, bias?.down);
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
