/** The GSP mask of shared/spec/crane.md: w(σ) = sigmoid(k · (σ/σ₁ − τ)); strong directions are removed. */

/** k = 4.6/τ puts w ≈ 0.01 at 0, 0.5 at τ and ≈ 0.99 at 2τ. */
export const defaultSteepness = (tau: number): number => 4.6 / tau;

/** k follows 4.6/τ while it is at its default; a hand-set k stays put when τ moves. */
export const followsTau = (s: { tau: number; steepness: number }): boolean => Math.abs(s.steepness - defaultSteepness(s.tau)) < 1e-6 * s.steepness;

export function maskWeight(ratio: number, tau: number, steepness: number): number {
  return 1 / (1 + Math.exp(-steepness * (ratio - tau)));
}

export function maskWeights(ratios: ArrayLike<number>, tau: number, steepness: number): Float64Array {
  const out = new Float64Array(ratios.length);
  for (let i = 0; i < ratios.length; i++) out[i] = maskWeight(ratios[i] ?? 0, tau, steepness);
  return out;
}

/** Σ w_i: how many directions the mask effectively removes. */
export function removedDirections(ratios: ArrayLike<number>, tau: number, steepness: number): number {
  let sum = 0;
  for (let i = 0; i < ratios.length; i++) sum += maskWeight(ratios[i] ?? 0, tau, steepness);
  return sum;
}

/** The mask as a smooth curve over σ/σ₁ ∈ [lo, 1], log-spaced, for drawing. */
export function maskCurve(tau: number, steepness: number, lo = 1e-4, points = 96): { ratio: number; weight: number }[] {
  const out: { ratio: number; weight: number }[] = [];
  const a = Math.log10(lo);
  for (let i = 0; i < points; i++) {
    const ratio = 10 ** (a + (-a * i) / (points - 1));
    out.push({ ratio, weight: maskWeight(ratio, tau, steepness) });
  }
  return out;
}
