/**
 * Coordinates of rows along an orthonormal basis, the inner kernel of GSP's projection and of
 * the preview's per-direction moments:
 *
 *   projectFourRows(rows, basisT, rank, out)   out[k·rank + i] = rows[k] · V_i   for k = 0..3
 *   projectRow(row, basisT, rank, out)         out[i] = row · V_i
 *
 * basisT is V transposed (rank × dim, float64): direction i is contiguous, so each coordinate
 * is a dot product held in a register. Four rows × two directions are computed per sweep over
 * dim — every loaded basis value is used four times and every row value twice — which is
 * what turns the naive row-at-a-time update of a rank-long accumulator (a load and a store per
 * multiply-add) into arithmetic-bound code. Sums are float64, in the order of j.
 *
 * GSP runs projectFourRows as row-projection-kernel.ts's WebAssembly SIMD kernel (the basis laid
 * out once); this scalar loop is the definition that kernel is held to bit for bit.
 */

/** One row: an array and the offset where the row's `dim` values start. */
export interface RowView {
  readonly values: Float32Array | Float64Array;
  readonly offset: number;
}

export function projectFourRows(rows: readonly [RowView, RowView, RowView, RowView], basisT: Float64Array, rank: number, out: Float64Array): void {
  const dim = basisT.length / rank;
  const [a, b, c, d] = rows;
  const [xa, xb, xc, xd] = [a.values, b.values, c.values, d.values];
  const [oa, ob, oc, od] = [a.offset, b.offset, c.offset, d.offset];
  let i = 0;
  for (; i + 1 < rank; i += 2) {
    const v0 = i * dim;
    const v1 = v0 + dim;
    let a0 = 0, a1 = 0, b0 = 0, b1 = 0, c0 = 0, c1 = 0, d0 = 0, d1 = 0;
    for (let j = 0; j < dim; j++) {
      const p = basisT[v0 + j] as number;
      const q = basisT[v1 + j] as number;
      const ya = xa[oa + j] as number;
      const yb = xb[ob + j] as number;
      const yc = xc[oc + j] as number;
      const yd = xd[od + j] as number;
      a0 += ya * p; a1 += ya * q;
      b0 += yb * p; b1 += yb * q;
      c0 += yc * p; c1 += yc * q;
      d0 += yd * p; d1 += yd * q;
    }
    out[i] = a0; out[i + 1] = a1;
    out[rank + i] = b0; out[rank + i + 1] = b1;
    out[2 * rank + i] = c0; out[2 * rank + i + 1] = c1;
    out[3 * rank + i] = d0; out[3 * rank + i + 1] = d1;
  }
  if (i < rank) {
    const v0 = i * dim;
    let a0 = 0, b0 = 0, c0 = 0, d0 = 0;
    for (let j = 0; j < dim; j++) {
      const p = basisT[v0 + j] as number;
      a0 += (xa[oa + j] as number) * p;
      b0 += (xb[ob + j] as number) * p;
      c0 += (xc[oc + j] as number) * p;
      d0 += (xd[od + j] as number) * p;
    }
    out[i] = a0; out[rank + i] = b0; out[2 * rank + i] = c0; out[3 * rank + i] = d0;
  }
}

export function projectRow(row: RowView, basisT: Float64Array, rank: number, out: Float64Array): void {
  const dim = basisT.length / rank;
  const { values, offset } = row;
  for (let i = 0; i < rank; i++) {
    const v = i * dim;
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += (values[offset + j] as number) * (basisT[v + j] as number);
    out[i] = sum;
  }
}

/** V (dim × rank, row-major float32, as GspProjector stores it) transposed and widened. */
export function transposedBasis(basis: Float32Array, dim: number, rank: number): Float64Array {
  const t = new Float64Array(dim * rank);
  for (let j = 0; j < dim; j++) for (let i = 0; i < rank; i++) t[i * dim + j] = basis[j * rank + i] as number;
  return t;
}
