/**
 * Spherical linear interpolation in its two forms: the MoE router rule of CRANE (the reference's
 * crane_merge.py) and the SLERP baseline (the reference's baseline/slerp.py). They differ on
 * purpose; each reproduces its own script, so neither may stand in for the other.
 *
 *   routerSlerpInto(a, b, t, out)          CRANE's router rule over the whole (flattened) tensor
 *   routerSlerpWeights(a·b, ‖a‖², ‖b‖², t)  its two weights (the preview's router term)
 *   baselineSlerpRows(a, b, shape, t)      the SLERP baseline, one row at a time
 *
 * Router rule: SLERP(a, b, t) = sin((1−t)θ)/sin θ · a + sin(tθ)/sin θ · b on the raw vectors,
 * cos θ = a·b / (‖a‖‖b‖); linear where cos θ > 0.9995 (sin θ → 0 makes the weights ill-
 * conditioned), where a vector is zero (no direction) and at cos θ = −1 (no unique arc).
 *
 * Baseline: per row, the unit directions are interpolated on the arc and the result is scaled
 * by the linearly interpolated norm, (1−t)‖a‖ + t‖b‖; linear interpolation of the raw row where
 * |sin Ω| < 1e-3 (near-parallel and near-anti-parallel alike, where the weights blow up) or where
 * either norm is below 1e-8. Rows are the first dimension with the rest flattened; a 1-D tensor
 * (a norm vector, a bias) is a single row.
 */

export const ROUTER_SLERP_LINEAR_ABOVE_COS = 0.9995;
/** The baseline's fallback threshold on |sin Ω|, and its zero-norm threshold. */
export const BASELINE_SLERP_LINEAR_BELOW_SIN = 1e-3;
export const BASELINE_SLERP_ZERO_NORM = 1e-8;

export function routerSlerpInto(a: Float32Array, b: Float32Array, t: number, out: Float32Array): void {
  const { dot, aa, bb } = rowProducts(a, b, 0, a.length);
  const [wa, wb] = routerSlerpWeights(dot, aa, bb, t);
  for (let i = 0; i < a.length; i++) out[i] = wa * (a[i] as number) + wb * (b[i] as number);
}

/** The router rule's weights on the raw vectors from a·b, ‖a‖², ‖b‖²: SLERP(a, b, t) = wa·a + wb·b. */
export function routerSlerpWeights(dot: number, aa: number, bb: number, t: number): [number, number] {
  if (aa > 0 && bb > 0) {
    const cos = clampCos(dot / Math.sqrt(aa * bb));
    const theta = Math.acos(cos);
    const sin = Math.sin(theta);
    if (cos <= ROUTER_SLERP_LINEAR_ABOVE_COS && sin > 0) return [Math.sin((1 - t) * theta) / sin, Math.sin(t * theta) / sin];
  }
  return [1 - t, t];
}

export function baselineSlerpRows(a: Float32Array, b: Float32Array, shape: readonly number[], t: number): Float32Array {
  const out = new Float32Array(a.length);
  const rows = shape.length <= 1 ? 1 : (shape[0] as number);
  const width = rows === 0 ? 0 : a.length / rows;
  for (let r = 0; r < rows; r++) baselineSlerpRowInto(a, b, t, out, r * width, (r + 1) * width);
  return out;
}

function baselineSlerpRowInto(a: Float32Array, b: Float32Array, t: number, out: Float32Array, start: number, end: number): void {
  const { dot, aa, bb } = rowProducts(a, b, start, end);
  const normA = Math.sqrt(aa);
  const normB = Math.sqrt(bb);
  // Weights on the raw rows: lerp by default, and when stable, the direction weights folded with
  // the norms: c1·(a/‖a‖)·n + c2·(b/‖b‖)·n with n the interpolated norm.
  let wa = 1 - t;
  let wb = t;
  if (normA >= BASELINE_SLERP_ZERO_NORM && normB >= BASELINE_SLERP_ZERO_NORM) {
    const omega = Math.acos(clampCos(dot / (normA * normB)));
    const sin = Math.sin(omega);
    if (Math.abs(sin) >= BASELINE_SLERP_LINEAR_BELOW_SIN) {
      const norm = (1 - t) * normA + t * normB;
      wa = (Math.sin((1 - t) * omega) / sin) * (norm / normA);
      wb = (Math.sin(t * omega) / sin) * (norm / normB);
    }
  }
  for (let i = start; i < end; i++) out[i] = wa * (a[i] as number) + wb * (b[i] as number);
}

function rowProducts(a: Float32Array, b: Float32Array, start: number, end: number): { dot: number; aa: number; bb: number } {
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
  return { dot, aa, bb };
}

function clampCos(cos: number): number {
  return Math.min(1, Math.max(-1, cos));
}
