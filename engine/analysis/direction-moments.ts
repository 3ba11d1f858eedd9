/**
 * The preview's per-direction moments of one tensor (tensor-moments.ts), on the row-projection
 * SIMD kernel (linalg/row-projection-kernel.ts).
 *
 *   projectedMoments(rows, projector) → { scalars: 6 sums, directions: rank × 6 }
 *
 * For every row of the tensor and every direction V_i: c_R, c_A, c_T, c_D = the row of g_R, g_A,
 * T(δ), δ dotted with V_i, then out[i] += (c_R·c_T, c_A·c_T, c_T², c_R·c_D, c_A·c_D, c_D²).
 * That is rows·d·r·4 multiply-adds in float64, most of the gates stage: the four dot products of
 * a row are one call of the kernel GSP's projection uses (four rows against the basis), and the
 * six moments, r·6 operations a row against its d·r·8, are added here.
 *
 * Bit-identical to the scalar float64 loops: the kernel's dot products equal the loop over
 * j = 0…d−1 from +0 bit for bit, and each moment is added in row order. Products of two float32
 * values are exact in float64, so only the order could have differed. T(δ) is formed for one
 * row at a time, straight into the kernel's row slots, and the six scalar sums of tensor-moments
 * ride along in that same pass.
 */
import type { GspProjector } from '../crane/gsp-projector.ts';
import { ProjectionBasis } from '../linalg/row-projection-kernel.ts';
import { transposedBasis } from '../linalg/row-projection.ts';

/** tensor-moments.ts MOMENTS: the layout written here (imported there, so not imported back). */
const DIRECTION_MOMENTS = 6;

export interface ThresholdedRows {
  readonly gradR: Float32Array;
  readonly gradA: Float32Array;
  readonly delta: Float32Array;
  /** T(δ)_j = fround(δ_j·rescale) where |δ_j| > threshold, else 0 (magnitude-threshold.ts). */
  readonly threshold: number;
  readonly rescale: number;
}

/**
 * Per-direction moments of `rows` against the projector (rank × DIRECTION_MOMENTS) and the six
 * scalar sums (tensor-moments' layout), from one pass over the tensor.
 */
export function projectedMoments(rows: ThresholdedRows, projector: GspProjector): { scalars: Float64Array; directions: Float64Array } {
  const { dim, rank } = projector;
  const { gradR, gradA, delta, threshold, rescale } = rows;
  const length = delta.length;
  if (length % dim !== 0) throw new RangeError(`${length} values are not rows of ${dim}`);
  const basis = new ProjectionBasis(transposedBasis(projector.basis, dim, rank), rank);
  const slots = basis.rowSlots;
  const coordinates = new Float64Array(4 * rank);
  const directions = new Float64Array(rank * DIRECTION_MOMENTS);
  let rt = 0, at = 0, tt = 0, rd = 0, ad = 0, dd = 0;
  for (let start = 0; start < length; start += dim) {
    for (let j = 0; j < dim; j++) {
      const r = gradR[start + j] as number;
      const a = gradA[start + j] as number;
      const d = delta[start + j] as number;
      const t = Math.fround(d * rescale) * Number(Math.abs(d) > threshold); // branch-free: thresholdOf
      slots[4 * j] = r;
      slots[4 * j + 1] = a;
      slots[4 * j + 2] = t;
      slots[4 * j + 3] = d;
      rt += r * t; at += a * t; tt += t * t;
      rd += r * d; ad += a * d; dd += d * d;
    }
    basis.projectSlots(coordinates); // rows g_R, g_A, T(δ), δ
    for (let i = 0, o = 0; i < rank; i++, o += DIRECTION_MOMENTS) {
      const cR = coordinates[i] as number;
      const cA = coordinates[rank + i] as number;
      const cT = coordinates[2 * rank + i] as number;
      const cD = coordinates[3 * rank + i] as number;
      directions[o] = (directions[o] as number) + cR * cT;
      directions[o + 1] = (directions[o + 1] as number) + cA * cT;
      directions[o + 2] = (directions[o + 2] as number) + cT * cT;
      directions[o + 3] = (directions[o + 3] as number) + cR * cD;
      directions[o + 4] = (directions[o + 4] as number) + cA * cD;
      directions[o + 5] = (directions[o + 5] as number) + cD * cD;
    }
  }
  return { scalars: Float64Array.of(rt, at, tt, rd, ad, dd), directions };
}
