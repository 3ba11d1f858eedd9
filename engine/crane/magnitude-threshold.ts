/**
 * Stage 1 of CRANE: per-tensor magnitude thresholding T(δ).
 *
 *   magnitudeThreshold(delta, keepQuantile = 0.5) → { values, threshold, kept }
 *   thresholdOf(delta, keepQuantile = 0.5) → { threshold, rescale }   (T(δ) without the array)
 *
 * m = the k-th smallest |δ| of this one tensor, k = max(1, floor(n·q)); entries with |δ| > m
 * (strictly) survive and are multiplied by 1/(1−q), the rest become 0. At q = 0.5 this is the
 * reference's lower median, k = max(1, floor(n/2)), and a ×2 rescale. Because the comparison
 * is strict, ties at the threshold are all dropped: [1, 1, 1, 1] keeps nothing.
 * The threshold is found by selection on a copy (expected O(n)), never by sorting.
 */
import { kthSmallestAbs } from '../linalg/kth-smallest.ts';
import { DEFAULT_KEEP_QUANTILE } from '../protocol/settings-defaults.ts';


export interface ThresholdedDelta {
  /** T(δ): survivors rescaled by 1/(1−q), zeros elsewhere. Same length as the input. */
  readonly values: Float32Array;
  /** m, the magnitude that survivors strictly exceed. */
  readonly threshold: number;
  /** How many entries survived. */
  readonly kept: number;
}

/** floor(n·fraction), with a 1e-12 relative nudge so that decimal fractions such as 0.29 do
 *  not lose one to binary rounding (0.29·100 = 28.999999999999996 in float64). */
export function countOfFraction(n: number, fraction: number): number {
  return Math.floor(n * fraction * (1 + 1e-12));
}

/** k = max(1, floor(n·q)): the rank of the threshold magnitude. */
export function thresholdRank(n: number, keepQuantile: number): number {
  return Math.max(1, countOfFraction(n, keepQuantile));
}

/**
 * m and 1/(1−q) of one tensor, for callers that apply T(δ) on the fly rather than into an array:
 * T(δ)_i = fround(δ_i·rescale) where |δ_i| > threshold, else 0 — the values magnitudeThreshold stores.
 * Hot loops form it branch-free, fround(δ_i·rescale)·Number(|δ_i| > threshold): m is a quantile,
 * so a branch on it mispredicts about every other value (≈5× slower at q = 0.5). A dropped
 * negative value then reads −0, not +0; a float64 sum that starts at +0 never becomes −0, so
 * adding either zero (or a product with one) leaves every sum bit-identical.
 */
export function thresholdOf(delta: Float32Array, keepQuantile: number = DEFAULT_KEEP_QUANTILE): { threshold: number; rescale: number } {
  if (!(keepQuantile >= 0 && keepQuantile < 1)) throw new RangeError(`keep quantile ${keepQuantile} must be in [0, 1)`);
  const threshold = delta.length === 0 ? 0 : kthSmallestAbs(delta, thresholdRank(delta.length, keepQuantile));
  return { threshold, rescale: 1 / (1 - keepQuantile) };
}

/** `values` is a fresh array unless given one; it may be `delta` itself (each value is read before it is written). */
export function magnitudeThreshold(delta: Float32Array, keepQuantile: number = DEFAULT_KEEP_QUANTILE, values: Float32Array = new Float32Array(delta.length)): ThresholdedDelta {
  const { threshold, rescale } = thresholdOf(delta, keepQuantile);
  let kept = 0;
  for (let i = 0; i < delta.length; i++) {
    const v = delta[i] as number;
    if (Math.abs(v) > threshold) {
      values[i] = v * rescale;
      kept++;
    } else {
      values[i] = 0;
    }
  }
  return { values, threshold, kept };
}
