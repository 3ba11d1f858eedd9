/**
 * The first-order moments of one tensor's candidate update that the instant preview needs.
 *
 *   tensorMoments(inputs, keepQuantile, projector?) → TensorMoments
 *
 * For the update U ∈ {T(δ) at keep-quantile q, raw δ} (raw serves the "threshold off" toggle):
 *   g_R·U, g_A·U, ‖U‖²                                   (scalars)
 *   (g_R V_i)·(U V_i), (g_A V_i)·(U V_i), ‖U V_i‖²         (per protected direction i of V_r)
 * where (X V_i)·(Y V_i) = Σ_rows (X_row·V_i)(Y_row·V_i). With these, for any scale a and mask w:
 *   g·Π(aU) = a·(g·U − Σ_i w_i (gV_i)·(UV_i))              since Π(U) = U − U·V diag(w) Vᵀ
 *   ‖Π(U)‖² = ‖U‖² − Σ_i (2w_i − w_i²)·‖UV_i‖²              for orthonormal V:
 *       (I − VWVᵀ)² = I − 2VWVᵀ + VW(VᵀV)WVᵀ = I − V(2W − W²)Vᵀ, and ‖UP‖² = tr(U P² Uᵀ).
 *
 * Layout (flat, so the preview can sum without objects): MOMENTS = 6 values per scalar set and
 * per direction, in the order [T: g_R, g_A, ‖·‖²,  raw: g_R, g_A, ‖·‖²]. All sums are float64.
 * Cost with a projector: four row projections onto V_r per row (O(rows·d_in·r)), on GSP's
 * row-projection SIMD kernel (direction-moments.ts → linalg/row-projection-kernel.ts); T(δ) is
 * never stored, each value is formed where it is used.
 */
import type { GateInputs } from '../crane/gate-accumulator.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { thresholdOf } from '../crane/magnitude-threshold.ts';
import { projectedMoments, type ThresholdedRows } from './direction-moments.ts';

export const MOMENTS = 6;
/** Offset of each update kind inside a group of MOMENTS values. */
export const THRESHOLDED = 0;
export const RAW = 3;
/** Offset of each quantity inside an update kind. */
export const GRAD_R = 0;
export const GRAD_A = 1;
export const NORM = 2;

export type MomentInputs = Pick<GateInputs, 'delta' | 'gradR' | 'gradA'>;

export interface TensorMoments {
  /** MOMENTS values. */
  readonly scalars: Float64Array;
  /** rank × MOMENTS values (direction-major), or null when not projected. */
  readonly directions: Float64Array | null;
}

export function tensorMoments(inputs: MomentInputs, keepQuantile: number, projector?: GspProjector): TensorMoments {
  const { delta, gradR, gradA } = inputs;
  const n = delta.length;
  if (gradR.length !== n || gradA.length !== n) throw new RangeError(`moment inputs differ in length: δ ${n}, g_R ${gradR.length}, g_A ${gradA.length}`);
  const rows = { gradR, gradA, delta, ...thresholdOf(delta, keepQuantile) };
  return projector === undefined ? { scalars: scalarMoments(rows), directions: null } : projectedMoments(rows, projector);
}

/** The six scalar sums in locals (registers), T(δ) computed on the fly as magnitudeThreshold stores it. */
function scalarMoments({ gradR, gradA, delta, threshold, rescale }: ThresholdedRows): Float64Array {
  let rt = 0, at = 0, tt = 0, rd = 0, ad = 0, dd = 0;
  for (let j = 0; j < delta.length; j++) {
    const r = gradR[j] as number;
    const a = gradA[j] as number;
    const d = delta[j] as number;
    const t = Math.fround(d * rescale) * Number(Math.abs(d) > threshold); // branch-free: thresholdOf
    rt += r * t;
    at += a * t;
    tt += t * t;
    rd += r * d;
    ad += a * d;
    dd += d * d;
  }
  const scalars = new Float64Array(MOMENTS);
  scalars[THRESHOLDED + GRAD_R] = rt;
  scalars[THRESHOLDED + GRAD_A] = at;
  scalars[THRESHOLDED + NORM] = tt;
  scalars[RAW + GRAD_R] = rd;
  scalars[RAW + GRAD_A] = ad;
  scalars[RAW + NORM] = dd;
  return scalars;
}
