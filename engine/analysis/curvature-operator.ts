/**
 * The curvature matrix M (B×B, symmetric: Δ_bᵀHΔ_b' per loss) as the preview applies it, in one
 * of two forms:
 *   dense     M itself, row-major: M·x costs B² (the curvature stage's few hundred directions);
 *   low-rank  M ≈ diag(d) + V·diag(w)·Vᵀ with V B×k: M·x costs 2·B·k, so a 48-layer,
 *             128-expert analysis (B ≈ 6,300 directions) stays within the preview's budget.
 *
 *   const op = curvatureOperator(matrix, size)          matrix: { dense } or { lowRank }
 *   op.apply(x, y, mx, my)                              mx = M·x, my = M·y (two vectors per call)
 *   op.errorBound(c)                                    |cᵀ(M_true − M)c| ≤ this, by how M was truncated
 *   factorDense(dense, size, rank) → LowRank            the `rank` eigenpairs of largest |λ|
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
}

export type CurvatureMatrix = { readonly dense: readonly number[] } | { readonly lowRank: LowRankCurvature };

export interface CurvatureOperator {
  apply(x: Float64Array, y: Float64Array, mx: Float64Array, my: Float64Array): void;
  errorBound(c: Float64Array): number;
}

export function curvatureOperator(matrix: CurvatureMatrix, size: number): CurvatureOperator {
  return 'dense' in matrix ? denseOperator(Float64Array.from(matrix.dense), size) : lowRankOperator(matrix.lowRank, size);
}

function denseOperator(m: Float64Array, size: number): CurvatureOperator {
  if (m.length !== size * size) throw new RangeError(`a dense curvature of ${m.length} values for ${size} directions`);
  return {
    apply(x, y, mx, my) {
      for (let b = 0, at = 0; b < size; b++) {
        let sx = 0, sy = 0;
        for (let j = 0; j < size; j++, at++) {
          const mbj = m[at] as number;
          sx += mbj * (x[j] as number);
          sy += mbj * (y[j] as number);
        }
        mx[b] = sx;
        my[b] = sy;
      }
    },
    errorBound: () => 0,
  };
}

function lowRankOperator(f: LowRankCurvature, size: number): CurvatureOperator {
  const k = f.weights.length;
  if (f.diagonal.length !== size || f.vectors.length !== size * k) throw new RangeError(`a low-rank curvature of ${f.diagonal.length} diagonal and ${f.vectors.length} factor values for ${size} directions at rank ${k}`);
  const d = Float64Array.from(f.diagonal);
  const v = Float64Array.from(f.vectors);
  const w = Float64Array.from(f.weights);
  const tx = new Float64Array(k);
  const ty = new Float64Array(k);
  return {
    apply(x, y, mx, my) {
      tx.fill(0);
      ty.fill(0);
      for (let b = 0, at = 0; b < size; b++) {
        const xb = x[b] as number;
        const yb = y[b] as number;
        for (let i = 0; i < k; i++, at++) {
          tx[i] = (tx[i] as number) + (v[at] as number) * xb;
          ty[i] = (ty[i] as number) + (v[at] as number) * yb;
        }
      }
      for (let i = 0; i < k; i++) {
        tx[i] = (tx[i] as number) * (w[i] as number);
        ty[i] = (ty[i] as number) * (w[i] as number);
      }
      for (let b = 0, at = 0; b < size; b++) {
        let sx = (d[b] as number) * (x[b] as number);
        let sy = (d[b] as number) * (y[b] as number);
        for (let i = 0; i < k; i++, at++) {
          sx += (v[at] as number) * (tx[i] as number);
          sy += (v[at] as number) * (ty[i] as number);
        }
        mx[b] = sx;
        my[b] = sy;
      }
    },
    errorBound: (c) => f.dropped * c.reduce((sum, ci) => sum + ci * ci, 0),
  };
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
