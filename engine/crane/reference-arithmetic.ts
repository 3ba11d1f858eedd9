/**
 * The `crane` rule in the reference's working dtype (settings arith: 'reference'), step for step
 * as crane_merge.py runs it in PyTorch bfloat16:
 *
 *   t_i, t_t = θ_I.to(bf16), θ_T.to(bf16)
 *   δ = t_t − t_i                                   bf16 op
 *   T(δ) = δ · mask · 1/(1−q)                        mask = |δ| > kthvalue(|δ|, k); ×2 at q = 0.5
 *   scaled = T(δ) · (α·S)                            α·S a Python float (float64)
 *   scaled = (scaled.float() − Π).to(bf16)           GSP in float32, cast back
 *   θ_M = t_i + scaled                               bf16 op
 *
 * A PyTorch bf16 op computes in float32 ("opmath") and rounds the float32 result to the nearest
 * bf16, ties to even; a Python scalar operand enters as float32. bf16Op reproduces exactly that:
 * the float64 result of two bf16 operands (or a bf16 and a float32) is the exact value or rounds
 * the same way float32 would, Math.fround takes it to float32, f32ToBf16Bits to bf16.
 * Non-survivors of the threshold are δ·0, a signed zero, as in the reference.
 *
 * The one step that is not bit-exact on every machine is the projection: the reference's matmul
 * sums in float32 in an order its GPU library chooses; here it sums in float64 and rounds once
 * (gsp-projector.ts), so a bf16 result can differ by one unit where that float32 value lies on a
 * bf16 rounding boundary.
 */
import { bf16BitsToF32, f32ToBf16Bits } from '../io/half-float.ts';
import { kthSmallestAbs } from '../linalg/kth-smallest.ts';
import { thresholdRank } from './magnitude-threshold.ts';

/** The bf16 nearest (ties to even) to the float32 nearest to x: a PyTorch bf16 op's result. */
function bf16Op(x: number): number {
  return bf16BitsToF32(f32ToBf16Bits(x));
}

/** `tensor.to(torch.bfloat16)` of float32 values. */
export function toBf16(values: Float32Array): Float32Array {
  const out = new Float32Array(values.length);
  for (let i = 0; i < out.length; i++) out[i] = bf16Op(values[i] as number);
  return out;
}

/** δ = t_t − t_i in bf16, from bf16 inputs. */
export function bf16TaskVector(tI: Float32Array, tT: Float32Array): Float32Array {
  const delta = new Float32Array(tI.length);
  for (let i = 0; i < delta.length; i++) delta[i] = bf16Op((tT[i] as number) - (tI[i] as number));
  return delta;
}

/** crane_denoise.median_threshold at keep quantile q, in place: survivors ×1/(1−q), the rest δ·0. */
export function bf16ThresholdInPlace(delta: Float32Array, keepQuantile: number): void {
  if (delta.length === 0) return;
  const threshold = kthSmallestAbs(delta, thresholdRank(delta.length, keepQuantile));
  const rescale = Math.fround(1 / (1 - keepQuantile));
  for (let i = 0; i < delta.length; i++) {
    const v = delta[i] as number;
    delta[i] = Math.abs(v) > threshold ? bf16Op(v * rescale) : v * 0;
  }
}

/** `bf16 tensor * python_float`, in place: the float64 factor enters as float32. */
export function bf16ScaleInPlace(values: Float32Array, factor: number): void {
  const f = Math.fround(factor);
  for (let i = 0; i < values.length; i++) values[i] = bf16Op((values[i] as number) * f);
}

/** t_i + Δ in bf16. */
export function bf16AddDelta(tI: Float32Array, delta: Float32Array): Float32Array {
  const out = new Float32Array(tI.length);
  for (let i = 0; i < out.length; i++) out[i] = bf16Op((tI[i] as number) + (delta[i] as number));
  return out;
}

/** `t_i + (t_t − t_i) * s` in bf16 (the lm_head and think-row rules), s a Python float. */
export function bf16Blend(tI: number, tT: number, strength: number): number {
  return bf16Op(tI + bf16Op(bf16Op(tT - tI) * Math.fround(strength)));
}
