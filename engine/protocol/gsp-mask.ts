/**
 * The GSP mask of shared/spec/crane.md, w(σ) = sigmoid(k · (σ/σ₁ − τ)): strong format
 * directions (w ≈ 1) are removed from an edit's input side, weak ones pass. The engine's
 * projection (crane/gsp-projector.ts), the preview, the CLI and the UI's spectrum chart all
 * evaluate it here, so the curve the UI draws is the one the export applies.
 */

/** The reference centre τ of the mask. */
export const DEFAULT_TAU = 0.03;

/** k = 4.6/τ puts w ≈ 0.01 at σ/σ₁ = 0, 0.5 at τ and ≈ 0.99 at 2τ (logit(0.99) ≈ 4.6). */
export const defaultSteepness = (tau: number): number => 4.6 / tau;

/** k follows 4.6/τ while it is at its default; a hand-set k stays put when τ moves. */
export const followsTau = (s: { readonly tau: number; readonly steepness: number }): boolean =>
  Math.abs(s.steepness - defaultSteepness(s.tau)) < 1e-6 * s.steepness;

/** w of one direction whose singular value is `ratio` = σ_i/σ₁. */
export function maskWeight(ratio: number, tau: number, steepness: number): number {
  return 1 / (1 + Math.exp(-steepness * (ratio - tau)));
}

/** w of every direction of a spectrum σ (descending, σ₁ first); all 0 when σ₁ ≤ 0 (nothing to protect). */
export function sigmoidWeights(sigma: ArrayLike<number>, tau: number = DEFAULT_TAU, steepness: number = defaultSteepness(tau)): Float64Array {
  const sigma1 = sigma[0] ?? 0;
  const out = new Float64Array(sigma.length);
  if (!(sigma1 > 0)) return out;
  for (let i = 0; i < sigma.length; i++) out[i] = maskWeight((sigma[i] ?? 0) / sigma1, tau, steepness);
  return out;
}
