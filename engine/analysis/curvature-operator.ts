/**
 * The curvature matrix M (B×B, symmetric: Δ_bᵀHΔ_b' per loss) as the preview applies it, in one
 * of two forms:
 *   dense     M itself, row-major: B² per mat-vec (the curvature stage's few hundred directions);
 *   low-rank  M ≈ diag(d) + V·diag(w)·Vᵀ with V B×k: a 48-layer, 128-expert analysis
 *             (B ≈ 6,300 directions) stays within the preview's budget.
 *
 *   const op = curvatureOperator(matrix, size)          matrix: { dense } or { lowRank }
 *   op.groupForms(c0, c1, groupOf, groups, out)         per group g, with c = c0 + α·c1:
 *       out[3g..3g+2] = Σ_{b∈g} [c0_b (Mc0)_b,  c0_b (Mc1)_b + c1_b (Mc0)_b,  c1_b (Mc1)_b]
 *     so group g's share of cᵀMc is out[3g] + α·out[3g+1] + α²·out[3g+2] at every α.
 *   op.errorBound(c)                                    |cᵀ(M_true − M)c| ≤ this, by how M was truncated
 *                                                       (a sketch: 0 on its measured span, ∞ off it)
 *   factorDense(dense, size, rank) → LowRank            the `rank` eigenpairs of largest |λ|
 *
 * Low-rank, the forms need no M·c: Σ_{b∈g} x_b (My)_b = Σ_{b∈g} d_b x_b y_b + Σ_i w_i (Vᵀy)_i (V_gᵀx)_i,
 * and Vᵀy = Σ_g V_gᵀy, so one pass over V (2·B·k) gives every group's V_gᵀc0 and V_gᵀc1.
 *
 * factorDense keeps M = Σ_{kept} λ_i v_i v_iᵀ; what it drops is Σ_{dropped} λ_i (v_iᵀc)², at most
 * max|λ_dropped|·‖c‖² in size: `dropped` is that max|λ| (0 at full rank, where the form is exact).
 */
import { symmetricEigen } from '../linalg/symmetric-eigen.ts';

export interface LowRankCurvature {
  readonly diagonal: readonly number[];
  /** V, B×k row-major: row b holds direction b's k coordinates. */
  readonly vectors: readonly number[];
  readonly weights: readonly number[];
  /** The largest |eigenvalue| left out (0: nothing left out). */
  readonly dropped: number;
  /**
   * A sketch's measured span (curvature-sketch.ts): Q, B×r row-major, orthonormal columns. M is
   * known exactly only for c in span(Q); off it the form is a reconstruction with no bound.
   */
  readonly span?: readonly number[];
}

export type CurvatureMatrix = { readonly dense: readonly number[] } | { readonly lowRank: LowRankCurvature };

export interface CurvatureOperator {
  /** `groupOf[b]` in [0, groups); `out` holds 3·groups values. */
  groupForms(c0: Float64Array, c1: Float64Array, groupOf: Int32Array, groups: number, out: Float64Array): void;
  errorBound(c: Float64Array): number;
}

export function curvatureOperator(matrix: CurvatureMatrix, size: number): CurvatureOperator {
  return 'dense' in matrix ? denseOperator(Float64Array.from(matrix.dense), size) : lowRankOperator(matrix.lowRank, size);
}

function denseOperator(m: Float64Array, size: number): CurvatureOperator {
  if (m.length !== size * size) throw new RangeError(`a dense curvature of ${m.length} values for ${size} directions`);
  return {
    groupForms(c0, c1, groupOf, groups, out) {
      out.fill(0, 0, 3 * groups);
      for (let b = 0, at = 0; b < size; b++) {
        let m0 = 0, m1 = 0;
        for (let j = 0; j < size; j++, at++) {
          const mbj = m[at] as number;
          m0 += mbj * (c0[j] as number);
          m1 += mbj * (c1[j] as number);
        }
        addForms(out, 3 * (groupOf[b] as number), c0[b] as number, c1[b] as number, m0, m1);
      }
    },
    errorBound: () => 0,
  };
}

/** x_b's share of the three forms, given (Mc0)_b and (Mc1)_b. */
function addForms(out: Float64Array, at: number, x0: number, x1: number, m0: number, m1: number): void {
  out[at] = (out[at] as number) + x0 * m0;
  out[at + 1] = (out[at + 1] as number) + x0 * m1 + x1 * m0;
  out[at + 2] = (out[at + 2] as number) + x1 * m1;
}

function lowRankOperator(f: LowRankCurvature, size: number): CurvatureOperator {
  const k = f.weights.length;
  if (f.diagonal.length !== size || f.vectors.length !== size * k) throw new RangeError(`a low-rank curvature of ${f.diagonal.length} diagonal and ${f.vectors.length} factor values for ${size} directions at rank ${k}`);
  const d = Float64Array.from(f.diagonal);
  const v = Float64Array.from(f.vectors);
  const w = Float64Array.from(f.weights);
  const t0 = new Float64Array(k);
  const t1 = new Float64Array(k);
  let u0 = new Float64Array(0);
  let u1 = new Float64Array(0);
  return {
    groupForms(c0, c1, groupOf, groups, out) {
      if (u0.length < groups * k) [u0, u1] = [new Float64Array(groups * k), new Float64Array(groups * k)];
      u0.fill(0, 0, groups * k);
      u1.fill(0, 0, groups * k);
      out.fill(0, 0, 3 * groups);
      // u_g = V_gᵀc per group, and the diagonal's share.
      for (let b = 0, at = 0; b < size; b++) {
        const x0 = c0[b] as number;
        const x1 = c1[b] as number;
        const g = groupOf[b] as number;
        const db = d[b] as number;
        addForms(out, 3 * g, x0, x1, db * x0, db * x1);
        for (let i = 0, gi = g * k; i < k; i++, at++, gi++) {
          const vbi = v[at] as number;
          u0[gi] = (u0[gi] as number) + vbi * x0;
          u1[gi] = (u1[gi] as number) + vbi * x1;
        }
      }
      // t = Vᵀc scaled by w, then each group's Σ_i (w·t)_i u_{g,i}.
      t0.fill(0);
      t1.fill(0);
      for (let g = 0; g < groups; g++) {
        for (let i = 0, gi = g * k; i < k; i++, gi++) {
          t0[i] = (t0[i] as number) + (u0[gi] as number);
          t1[i] = (t1[i] as number) + (u1[gi] as number);
        }
      }
      for (let i = 0; i < k; i++) {
        t0[i] = (t0[i] as number) * (w[i] as number);
        t1[i] = (t1[i] as number) * (w[i] as number);
      }
      for (let g = 0; g < groups; g++) {
        let m00 = 0, m01 = 0, m11 = 0;
        for (let i = 0, gi = g * k; i < k; i++, gi++) {
          const g0 = u0[gi] as number;
          const g1 = u1[gi] as number;
          m00 += g0 * (t0[i] as number);
          m01 += g0 * (t1[i] as number) + g1 * (t0[i] as number);
          m11 += g1 * (t1[i] as number);
        }
        out[3 * g] = (out[3 * g] as number) + m00;
        out[3 * g + 1] = (out[3 * g + 1] as number) + m01;
        out[3 * g + 2] = (out[3 * g + 2] as number) + m11;
      }
    },
    errorBound: (c) => {
      const norm = c.reduce((sum, ci) => sum + ci * ci, 0);
      return f.span !== undefined && !inSpan(f.span, c, norm) ? Number.POSITIVE_INFINITY : f.dropped * norm;
    },
  };
}

/** ‖c − QQᵀc‖² within rounding of ‖c‖²: c is one of the combinations the sketch measured. */
function inSpan(span: readonly number[], c: Float64Array, norm: number): boolean {
  const r = span.length / c.length;
  const coordinates = new Float64Array(r);
  for (let b = 0; b < c.length; b++) for (let i = 0; i < r; i++) coordinates[i] = (coordinates[i] as number) + (span[b * r + i] as number) * (c[b] as number);
  const inside = coordinates.reduce((sum, x) => sum + x * x, 0);
  return norm - inside <= 1e-9 * norm;
}

export function factorDense(dense: readonly number[], size: number, rank: number): LowRankCurvature {
  const { values, vectors } = symmetricEigen(Float64Array.from(dense), size);
  const order = Array.from(values.keys()).sort((a, b) => Math.abs(values[b] as number) - Math.abs(values[a] as number));
  const kept = order.slice(0, Math.min(rank, size));
  const factor = new Array<number>(size * kept.length);
  kept.forEach((e, i) => {
    for (let b = 0; b < size; b++) factor[b * kept.length + i] = vectors[e * size + b] as number;
  });
  return {
    diagonal: new Array<number>(size).fill(0),
    vectors: factor,
    weights: kept.map((e) => values[e] as number),
    dropped: order.slice(kept.length).reduce((max, e) => Math.max(max, Math.abs(values[e] as number)), 0),
  };
}
