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
 * Each reflector goes over four columns (QR) or four vectors (the way back) at once: one load of
 * the reflector serves four products and each vector's sums keep their order, so the bits are
 * those of one at a time, in about half the CPU (96 rows of 1024: ≈ 55 → 30 ms).
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
  // y ← Q·y = H₀(H₁(⋯H_{N−1}·y)), four vectors at a time (each vector's steps are its own).
  for (let i = 0; i < kept; i += 4) {
    const block = blockOffsets(i, kept, dim);
    for (let j = count - 1; j >= 0; j--) {
      const t = tau[j] as number;
      if (t !== 0) reflectAll(a, j * dim, t, vectors, block, j, dim);
    }
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
  for (let k = j + 1; k < count; k += 4) reflectAll(a, c, t, a, blockOffsets(k, count, dim), j, dim);
}

/** Offsets of vectors first, first+1, … (at most four, below end) of length dim. */
function blockOffsets(first: number, end: number, dim: number): number[] {
  const offsets: number[] = [];
  for (let k = first; k < Math.min(first + 4, end); k++) offsets.push(k * dim);
  return offsets;
}

/**
 * reflect() on up to four vectors of `target` at once: each loaded reflector entry serves four
 * products, and every vector's dot product and update run over r in the same order as
 * reflect() alone would, so the results are the same bits (thin-gram-eigen.test.ts checks).
 */
export function reflectAll(a: Float64Array, v: number, t: number, target: Float64Array, offsets: readonly number[], j: number, dim: number): void {
  if (offsets.length !== 4) {
    for (const x of offsets) reflect(a, v, t, target, x, j, dim);
    return;
  }
  const [x0, x1, x2, x3] = offsets as [number, number, number, number];
  let d0 = target[x0 + j] as number;
  let d1 = target[x1 + j] as number;
  let d2 = target[x2 + j] as number;
  let d3 = target[x3 + j] as number;
  for (let r = j + 1; r < dim; r++) {
    const h = a[v + r] as number;
    d0 += h * (target[x0 + r] as number);
    d1 += h * (target[x1 + r] as number);
    d2 += h * (target[x2 + r] as number);
    d3 += h * (target[x3 + r] as number);
  }
  const f0 = t * d0;
  const f1 = t * d1;
  const f2 = t * d2;
  const f3 = t * d3;
  target[x0 + j] = (target[x0 + j] as number) - f0;
  target[x1 + j] = (target[x1 + j] as number) - f1;
  target[x2 + j] = (target[x2 + j] as number) - f2;
  target[x3 + j] = (target[x3 + j] as number) - f3;
  for (let r = j + 1; r < dim; r++) {
    const h = a[v + r] as number;
    target[x0 + r] = (target[x0 + r] as number) - f0 * h;
    target[x1 + r] = (target[x1 + r] as number) - f1 * h;
    target[x2 + r] = (target[x2 + r] as number) - f2 * h;
    target[x3 + r] = (target[x3 + r] as number) - f3 * h;
  }
}

/**
 * x ← (I − t·v·vᵀ)·x on entries j.. of the length-dim vector at offset x of `target`, where
 * v = (1, a[v+j+1], …, a[v+dim−1]) is reflector j as householderColumn stores it.
 */
export function reflect(a: Float64Array, v: number, t: number, target: Float64Array, x: number, j: number, dim: number): void {
  let dot = target[x + j] as number;
  for (let r = j + 1; r < dim; r++) dot += (a[v + r] as number) * (target[x + r] as number);
  const f = t * dot;
  target[x + j] = (target[x + j] as number) - f;
  for (let r = j + 1; r < dim; r++) target[x + r] = (target[x + r] as number) - f * (a[v + r] as number);
}
