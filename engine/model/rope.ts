/**
 * RoPE angle tables. Inverse frequencies θ^(−2i/d) (optionally Llama-3 rescaled) and angles
 * pos·inv_freq are rounded to float32 exactly where Hugging Face computes them in float32, so
 * our cos/sin match theirs bit-for-bit up to the final cos/sin evaluation.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Llama3RopeScaling, ModelSpec } from './config.ts';

export function inverseFrequencies(headDim: number, theta: number, scaling: Llama3RopeScaling | null): Float32Array {
  const half = headDim / 2;
  const inv = new Float32Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / Math.fround(theta ** Math.fround((2 * i) / headDim));
  return scaling === null ? inv : llama3Rescale(inv, scaling);
}

function llama3Rescale(inv: Float32Array, s: Llama3RopeScaling): Float32Array {
  const lowWavelen = s.originalMaxPositions / s.lowFreqFactor;
  const highWavelen = s.originalMaxPositions / s.highFreqFactor;
  return inv.map((f) => {
    const wavelen = (2 * Math.PI) / f;
    if (wavelen < highWavelen) return f;
    if (wavelen > lowWavelen) return f / s.factor;
    const smooth = (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
    return (1 - smooth) * (f / s.factor) + smooth * f;
  });
}

export interface RopeTables {
  /** [T, 1, d/2], broadcast over heads. */
  readonly cos: tf.Tensor3D;
  readonly sin: tf.Tensor3D;
}

/** cos/sin for positions start, start+1, …, start+count−1. The caller disposes them. */
export function ropeTables(spec: ModelSpec, start: number, count: number): RopeTables {
  const inv = inverseFrequencies(spec.headDim, spec.ropeTheta, spec.ropeScaling);
  const half = inv.length;
  const cos = new Float32Array(count * half);
  const sin = new Float32Array(count * half);
  for (let t = 0; t < count; t++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround((start + t) * (inv[i] as number));
      cos[t * half + i] = Math.cos(angle);
      sin[t * half + i] = Math.sin(angle);
    }
  }
  return { cos: tf.tensor3d(cos, [count, 1, half]), sin: tf.tensor3d(sin, [count, 1, half]) };
}
