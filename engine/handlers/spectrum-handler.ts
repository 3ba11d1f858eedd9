/**
 * spectrum: one layer/key projector's singular spectrum σ_i/σ₁ and the retained fraction
 * ‖Δ'‖²/‖Δ‖² of T(δ) over the tensors this projector acts on, from the preview coefficients:
 * ‖Δ'‖² = ‖Δ‖² − Σ_i (2w_i − w_i²)‖ΔV_i‖², with w the sigmoid mask at the request's τ and k
 * (sigmoidWeights, the function the edit itself uses). The weights themselves are not sent: the
 * UI derives them from σ_i/σ₁ (see spectrumSchema).
 */
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import { projectorKey } from '../crane/tensor-classification.ts';
import { MOMENTS, NORM, THRESHOLDED } from '../analysis/tensor-moments.ts';
import type { PreviewCoefficients } from '../analysis/preview-coefficients.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Params, Result } from '../protocol/methods.ts';
import type { EngineSession } from './engine-session.ts';
import { guarded } from './handler-errors.ts';

export function spectrumHandler(session: EngineSession) {
  return ({ layer, key, tau, steepness }: Params<'spectrum'>): Promise<Result<'spectrum'>> =>
    guarded(async () => {
      const { artifacts } = await session.analysis();
      const name = projectorKey(layer, key);
      const ratios = artifacts.coefficients.spectra.get(name) ?? ratiosOf(artifacts.projectors.get(name)?.sigma);
      if (ratios === undefined) throw new ProtocolError('not-found', `no GSP projector ${name} in this analysis`);
      const weights = sigmoidWeights(ratios, tau, steepness);
      return { layer, key, sigmaRatio: Float32Array.from(ratios), retainedFraction: retainedFraction(artifacts.coefficients, name, weights) };
    });
}

function ratiosOf(sigma: Float64Array | undefined): Float64Array | undefined {
  const first = sigma?.[0];
  return sigma === undefined || first === undefined || first <= 0 ? undefined : sigma.map((s) => s / first);
}

export function retainedFraction(coefficients: PreviewCoefficients, projector: string, weights: Float64Array): number {
  let total = 0;
  let removed = 0;
  coefficients.entries.forEach((entry, e) => {
    if (entry.projector !== projector) return;
    total += coefficients.scalars[e * MOMENTS + THRESHOLDED + NORM] as number;
    for (let i = 0; i < entry.rank; i++) {
      const w = weights[i] as number;
      removed += (2 * w - w * w) * (coefficients.directions[(entry.directionOffset + i) * MOMENTS + THRESHOLDED + NORM] as number);
    }
  });
  return total > 0 ? Math.min(1, Math.max(0, (total - removed) / total)) : 1;
}
