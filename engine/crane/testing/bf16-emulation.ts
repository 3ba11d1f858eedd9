/**
 * An independent emulation of the reference's bf16 `crane` rule (crane_merge.py merge_tensor),
 * for checking engine/crane/reference-arithmetic.ts bit for bit. It shares no code with the
 * engine: bfloat16 rounding is done arithmetically (scale by the unit in the last place, round
 * half to even) instead of on bit patterns, the threshold by a full sort, the projection by plain
 * loops over number[] rows.
 */

const BF16_FRACTION_BITS = 7;
const MIN_NORMAL_EXPONENT = -126;
/** Above the largest finite bf16, (2 − 2⁻⁷)·2¹²⁷, everything rounds to infinity. */
const BF16_OVERFLOW = 2 ** 128;

/** Round half to even of a non-negative number. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest > 0.5) return floor + 1;
  if (rest < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** The bf16 nearest (ties to even) to the float32 nearest to x: one PyTorch bf16 op. */
export function emulatedBf16(x: number): number {
  const single = Math.fround(x);
  if (single === 0 || !Number.isFinite(single)) return single;
  const magnitude = Math.abs(single);
  let exponent = Math.floor(Math.log2(magnitude));
  if (2 ** exponent > magnitude) exponent--;
  if (2 ** (exponent + 1) <= magnitude) exponent++;
  const ulp = 2 ** (Math.max(exponent, MIN_NORMAL_EXPONENT) - BF16_FRACTION_BITS);
  const rounded = roundHalfEven(magnitude / ulp) * ulp;
  const result = rounded >= BF16_OVERFLOW ? Infinity : rounded;
  return single < 0 ? -result : result;
}

export interface EmulatedSettings {
  /** α·S as the reference's Python float. */
  readonly factor: number;
  readonly keepQuantile: number;
  readonly threshold: boolean;
  /** Rows of V_r (d_in rows of r), σ, τ, k; absent = no projection. */
  readonly projector?: { readonly basis: readonly (readonly number[])[]; readonly sigma: readonly number[]; readonly tau: number; readonly steepness: number };
}

/** θ_M of one [rows × dIn] tensor, step by step in bf16 as the reference runs it. */
export function emulateReferenceCrane(thetaI: readonly number[], thetaT: readonly number[], dIn: number, settings: EmulatedSettings): number[] {
  const tI = thetaI.map(emulatedBf16);
  const tT = thetaT.map(emulatedBf16);
  let delta = tT.map((t, i) => emulatedBf16(t - (tI[i] as number)));
  if (settings.threshold) {
    const sorted = delta.map(Math.abs).sort((a, b) => a - b);
    const m = sorted[Math.max(1, Math.floor(delta.length * settings.keepQuantile)) - 1] as number;
    const rescale = Math.fround(1 / (1 - settings.keepQuantile));
    delta = delta.map((d) => (Math.abs(d) > m ? emulatedBf16(d * rescale) : d * 0));
  }
  const factor = Math.fround(settings.factor);
  let scaled = delta.map((d) => emulatedBf16(d * factor));
  if (settings.projector !== undefined) scaled = projectRows(scaled, dIn, settings.projector).map(emulatedBf16);
  return tI.map((t, i) => emulatedBf16(t + (scaled[i] as number)));
}

/** Δ − Δ·V·diag(w)·Vᵀ row by row, float64 sums rounded once to float32. */
function projectRows(delta: readonly number[], dIn: number, projector: NonNullable<EmulatedSettings['projector']>): number[] {
  const { basis, sigma, tau, steepness } = projector;
  const weights = sigma.map((s) => 1 / (1 + Math.exp(-steepness * (s / (sigma[0] as number) - tau))));
  const out: number[] = [];
  for (let row = 0; row * dIn < delta.length; row++) {
    const x = delta.slice(row * dIn, (row + 1) * dIn);
    const c = weights.map((w, i) => {
      let sum = 0;
      for (let j = 0; j < dIn; j++) sum += (x[j] as number) * ((basis[j] as number[])[i] as number);
      return sum * w;
    });
    for (let j = 0; j < dIn; j++) {
      let removed = 0;
      for (let i = 0; i < c.length; i++) removed += (c[i] as number) * ((basis[j] as number[])[i] as number);
      out.push(Math.fround((x[j] as number) - removed));
    }
  }
  return out;
}
