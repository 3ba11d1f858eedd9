/**
 * Spherical linear interpolation of two vectors, shared by the MoE router rule (whole tensor
 * flattened) and the SLERP baseline (one row at a time).
 *
 *   slerpInto(a, b, t, out, start?, end?)   out[start..end) = SLERP(a, b, t) over that range
 *
 * SLERP(a, b, t) = sin((1−t)θ)/sin θ · a + sin(tθ)/sin θ · b,  cos θ = a·b / (‖a‖‖b‖).
 * The raw (unnormalised) vectors are interpolated, so t = 0 gives a, t = 1 gives b, and two
 * vectors of equal norm keep that norm all along the arc. Linear interpolation is used where
 * the angle is tiny (cos θ > 0.9995, the reference's threshold: sin θ → 0 makes the weights
 * ill-conditioned and the arc is indistinguishable from the chord), where a vector is zero
 * (no direction to rotate from), and at cos θ = −1 exactly (no unique arc).
 */

export const SLERP_LINEAR_ABOVE_COS = 0.9995;

export function slerpInto(
  a: Float32Array,
  b: Float32Array,
  t: number,
  out: Float32Array,
  start = 0,
  end = a.length,
): void {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = start; i < end; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    aa += x * x;
    bb += y * y;
  }
  let wa = 1 - t;
  let wb = t;
  if (aa > 0 && bb > 0) {
    const cos = Math.min(1, Math.max(-1, dot / Math.sqrt(aa * bb)));
    const theta = Math.acos(cos);
    const sin = Math.sin(theta);
    if (cos <= SLERP_LINEAR_ABOVE_COS && sin > 0) {
      wa = Math.sin((1 - t) * theta) / sin;
      wb = Math.sin(t * theta) / sin;
    }
  }
  for (let i = start; i < end; i++) out[i] = wa * (a[i] as number) + wb * (b[i] as number);
}
