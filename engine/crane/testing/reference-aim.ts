/**
 * An independent, plain formulation of the reference's AIM merges (baseline/_aim.py with
 * task_arithmetic.py / ties.py) for cross-checking the engine in tests. It shares no code with
 * engine/crane: every element is computed on its own in float64, the TIES threshold comes from a
 * full sort (kthvalue(n − k + 1) of |τ|), and the AIM factor is recomputed per element.
 *
 *   referenceAim(thetaI, thetaT, cols, importance, { lambda, omega, density? })
 *     density absent: AIM-TA   θ_I + λτ·(1 − s·(1 − ω))
 *     density given:  AIM-TIES θ_I + λ·trim(τ)·(1 − s·(1 − ω))   (one task vector: elect/disjoint are the identity)
 * importance undefined = a tensor the reference's scaler passes through unchanged.
 */
export interface ReferenceAimSettings {
  readonly lambda: number;
  readonly omega: number;
  readonly density?: number;
}

export function referenceAim(thetaI: ArrayLike<number>, thetaT: ArrayLike<number>, cols: number, importance: ArrayLike<number> | undefined, settings: ReferenceAimSettings): number[] {
  const n = thetaI.length;
  const tau: number[] = [];
  for (let i = 0; i < n; i++) tau.push((thetaT[i] as number) - (thetaI[i] as number));
  const kept = settings.density === undefined ? tau : trim(tau, settings.density);
  let maxImportance = Number.NaN;
  if (importance !== undefined) {
    maxImportance = importance[0] as number;
    for (let j = 1; j < importance.length; j++) if ((importance[j] as number) > maxImportance) maxImportance = importance[j] as number;
  }
  const scaled = importance !== undefined && Number.isFinite(maxImportance) && maxImportance > 0 && importance.length === cols;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    let delta = settings.lambda * (kept[i] as number);
    if (scaled) {
      const s = (importance[i % cols] as number) / maxImportance;
      delta *= 1 - s * (1 - settings.omega);
    }
    out.push((thetaI[i] as number) + delta);
  }
  return out;
}

/** ties.py's ties_trim: keep |τ| ≥ the k-th largest magnitude, k = floor(n·density). */
function trim(tau: readonly number[], density: number): number[] {
  if (density >= 1) return [...tau];
  const k = Math.floor(tau.length * density);
  if (density <= 0 || k <= 0) return tau.map(() => 0);
  const ascending = tau.map(Math.abs).sort((a, b) => a - b);
  const threshold = ascending[tau.length - k] as number;
  return tau.map((v) => (Math.abs(v) >= threshold ? v : 0));
}
