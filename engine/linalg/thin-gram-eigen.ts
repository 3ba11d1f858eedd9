/**
 * The leading eigenpairs of a Gram matrix G = HᵀH from the rows of H itself, when H has far
 * fewer rows than columns (a few chats' format positions against d = 1024…4096):
 *
 *   thinGramEigen(rows, count, dim, wanted) → { values, vectors, count }   as topSymmetricEigen(HᵀH)
 *
 * Householder QR of Hᵀ (d × N): Hᵀ = Q·R, so G = Q·(R·Rᵀ)·Qᵀ, and the N×N matrix R·Rᵀ carries
 * every nonzero eigenvalue of G; its eigenvectors U, padded with zeros and carried back by
 * Q's reflectors, are G's. All steps are orthogonal transformations, so the accuracy is that of
 * a dense solver on G (unlike V = Hᵀ·U·Λ^{-1/2}, which divides rounding by small σ), at about
 * 2·d·N² + 4·d·N·r flops instead of 4/3·d³. G's other d − N eigenvalues are exactly 0.
 */
import { topSymmetricEigen, type TopSymmetricEigen } from './top-symmetric-eigen.ts';

export function thinGramEigen(rows: Float64Array, count: number, dim: number, wanted: (values: Float64Array) => number): TopSymmetricEigen {
  if (rows.length !== count * dim) throw new RangeError(`${rows.length} values are not ${count} rows of ${dim}`);
  if (count > dim) throw new RangeError(`${count} rows of ${dim}: the thin path needs no more rows than columns`);
  // Columns of Hᵀ are the rows of H: column j is contiguous, and so is every reflector.
  const a = Float64Array.from(rows);
  const tau = new Float64Array(count);
  for (let j = 0; j < count; j++) householderColumn(a, dim, count, j, tau);
  const b = new Float64Array(count * count); // R·Rᵀ, with R[i][k] = a[k*dim + i] for i ≤ k
  for (let i = 0; i < count; i++) {
    for (let l = 0; l <= i; l++) {
      let sum = 0;
      for (let k = i; k < count; k++) sum += (a[k * dim + i] as number) * (a[k * dim + l] as number);
      b[i * count + l] = sum;
      b[l * count + i] = sum;
    }
  }
  const values = new Float64Array(dim);
  const small = topSymmetricEigen(b, count, (descending) => {
    values.set(descending.map((v) => Math.max(v, 0)));
    return wanted(values);
  });
  const kept = small.count;
  const vectors = new Float64Array(kept * dim);
  for (let i = 0; i < kept; i++) vectors.set(small.vectors.subarray(i * count, (i + 1) * count), i * dim);
  // y ← Q·y = H₀(H₁(⋯H_{N−1}·y))
  for (let j = count - 1; j >= 0; j--) {
    const t = tau[j] as number;
    if (t === 0) continue;
    const v = j * dim;
    for (let i = 0; i < kept; i++) reflect(a, v, t, vectors, i * dim, j, dim);
  }
  return { values, vectors, count: kept };
}

/**
 * Reflector j annihilates column j below row j and is applied to columns j+1..; column j keeps
 * R[j][j] at row j and the reflector's tail (v[j] = 1 implied) below it.
 */
function householderColumn(a: Float64Array, dim: number, count: number, j: number, tau: Float64Array): void {
  const c = j * dim;
  const alpha = a[c + j] as number;
  let tail = 0;
  for (let r = j + 1; r < dim; r++) tail += (a[c + r] as number) ** 2;
  if (tail === 0) {
    tau[j] = 0;
    return;
  }
  const beta = alpha >= 0 ? -Math.sqrt(alpha * alpha + tail) : Math.sqrt(alpha * alpha + tail);
  const t = (beta - alpha) / beta;
  tau[j] = t;
  const scale = 1 / (alpha - beta);
  for (let r = j + 1; r < dim; r++) a[c + r] = (a[c + r] as number) * scale;
  a[c + j] = beta;
  for (let k = j + 1; k < count; k++) reflect(a, c, t, a, k * dim, j, dim);
}

/**
 * x ← (I − t·v·vᵀ)·x on entries j.. of the length-dim vector at offset x of `target`, where
 * v = (1, a[v+j+1], …, a[v+dim−1]) is reflector j as householderColumn stores it.
 */
function reflect(a: Float64Array, v: number, t: number, target: Float64Array, x: number, j: number, dim: number): void {
  let dot = target[x + j] as number;
  for (let r = j + 1; r < dim; r++) dot += (a[v + r] as number) * (target[x + r] as number);
  const f = t * dot;
  target[x + j] = (target[x + j] as number) - f;
  for (let r = j + 1; r < dim; r++) target[x + r] = (target[x + r] as number) - f * (a[v + r] as number);
}
