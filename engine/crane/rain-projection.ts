/**
 * RAIN stage 1: project one head's task-vector slice onto the null space of the reasoning
 * constraints, so the edit leaves the thinking model's features on LRM prompts (nearly) unchanged.
 *
 *   projectTaskSlice(delta, dIn, dOut, constraints, ridge) → the projected slice
 *
 * delta is a dIn×dOut slice of τ = instruct − base, laid out as the reference lays it out per
 * head (d_model rows, head_dim columns: the transposed q/k/v rows of the head, or o_proj's column
 * block). Constraint i is the rank-one functional a_i(Δ) = s_i · x_iᵀ Δ r_i, where x_i (dIn) is a
 * captured input feature, r_i (dOut) the partner feature (a key for Q, a query for K, the
 * attention-weighted read-out for V and O) and s_i its scale. The projection is the ridge-
 * regularised orthogonal (Frobenius) projection onto { Δ : a_i(Δ) = 0 }:
 *
 *   G_ij = s_i s_j (x_i·x_j)(r_i·r_j),   rhs_i = a_i(Δ),   z = (G + ridge·I)⁻¹ rhs
 *   Δ_proj = Δ − Σ_i s_i z_i x_i r_iᵀ
 *
 * The reference solves the m×m system by Cholesky; we reuse the symmetric eigensolver (G is
 * symmetric PSD, so G + ridge·I has the same eigenvectors and eigenvalues shifted by ridge),
 * which gives the same z for any ridge > 0 without a second factorisation routine.
 */

import { symmetricEigen } from '../linalg/symmetric-eigen.ts';

export interface RankOneConstraints {
  readonly count: number;
  /** count×dIn row-major: x_i. */
  readonly inputs: Float64Array;
  /** count×dOut row-major: r_i. */
  readonly partners: Float64Array;
  /** count: s_i. */
  readonly scales: Float64Array;
}

export function projectTaskSlice(
  delta: Float64Array,
  dIn: number,
  dOut: number,
  constraints: RankOneConstraints,
  ridge: number,
): Float64Array {
  const { count: m, inputs, partners, scales } = constraints;
  if (delta.length !== dIn * dOut) throw new RangeError(`task slice has ${delta.length} entries, expected ${dIn}×${dOut}`);
  if (inputs.length !== m * dIn) throw new RangeError(`constraint inputs have ${inputs.length} entries, expected ${m}×${dIn}`);
  if (partners.length !== m * dOut) throw new RangeError(`constraint partners have ${partners.length} entries, expected ${m}×${dOut}`);
  if (scales.length !== m) throw new RangeError(`constraint scales have ${scales.length} entries, expected ${m}`);
  if (!(ridge > 0)) throw new RangeError(`ridge must be > 0 (got ${ridge}); the reference's λ keeps G + λI invertible`);
  // The reference returns the slice untouched when there are no constraints.
  if (m === 0) return Float64Array.from(delta);

  const gram = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      const g = (scales[i] as number) * (scales[j] as number) * dot(inputs, i * dIn, inputs, j * dIn, dIn) * dot(partners, i * dOut, partners, j * dOut, dOut);
      gram[i * m + j] = g;
      gram[j * m + i] = g;
    }
  }
  const rhs = applyConstraints(delta, dIn, dOut, constraints);
  const z = solveShiftedSymmetric(gram, m, ridge, rhs);

  const projected = Float64Array.from(delta);
  for (let i = 0; i < m; i++) {
    const w = (scales[i] as number) * (z[i] as number);
    if (w === 0) continue;
    for (let a = 0; a < dIn; a++) {
      const wx = w * (inputs[i * dIn + a] as number);
      if (wx === 0) continue;
      const row = a * dOut;
      for (let b = 0; b < dOut; b++) projected[row + b] = (projected[row + b] as number) - wx * (partners[i * dOut + b] as number);
    }
  }
  return projected;
}

/** a_i(Δ) = s_i · x_iᵀ Δ r_i for every constraint: the residual the projection drives to ~0. */
export function applyConstraints(delta: Float64Array, dIn: number, dOut: number, constraints: RankOneConstraints): Float64Array {
  const { count: m, inputs, partners, scales } = constraints;
  const out = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let sum = 0;
    for (let a = 0; a < dIn; a++) {
      const x = inputs[i * dIn + a] as number;
      if (x === 0) continue;
      const row = a * dOut;
      let inner = 0;
      for (let b = 0; b < dOut; b++) inner += (delta[row + b] as number) * (partners[i * dOut + b] as number);
      sum += x * inner;
    }
    out[i] = (scales[i] as number) * sum;
  }
  return out;
}

function dot(a: Float64Array, aStart: number, b: Float64Array, bStart: number, length: number): number {
  let sum = 0;
  for (let k = 0; k < length; k++) sum += (a[aStart + k] as number) * (b[bStart + k] as number);
  return sum;
}

/** (S + shift·I)⁻¹ rhs for symmetric PSD S, through S = V Λ Vᵀ. */
function solveShiftedSymmetric(matrix: Float64Array, n: number, shift: number, rhs: Float64Array): Float64Array {
  const { values, vectors } = symmetricEigen(matrix, n);
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    // Rounding can leave a PSD matrix's smallest eigenvalue a hair below zero; clamp so the
    // shift alone bounds the conditioning, as it does in exact arithmetic.
    const coefficient = dot(vectors, k * n, rhs, 0, n) / (Math.max(values[k] as number, 0) + shift);
    for (let i = 0; i < n; i++) out[i] = (out[i] as number) + coefficient * (vectors[k * n + i] as number);
  }
  return out;
}
