/**
 * Householder reduction of a dense symmetric matrix to tridiagonal form, A = Q·T·Qᵀ, keeping Q
 * as its reflectors instead of forming it (LAPACK's sytd2 with the lower triangle).
 *
 *   const t = reduceToTridiagonal(matrix, n)   matrix n×n row-major, only the lower triangle read
 *   t.diag, t.off                             T: diagonal, off[i] couples i and i+1 (off[n−1] = 0)
 *   applyQ(t, vectors, count)                 each of `count` contiguous length-n rows y ← Q·y
 *
 * Cost: 4/3·n³ flops for the reduction and 2·n²·count for applyQ, against about 9·n³ for the
 * dense solver that forms Q and rotates all of it (symmetric-eigen.ts): when only the top r of n
 * eigenvectors are wanted, they are found on T and only those r are carried back.
 *
 * Memory traffic is what limits a reduction written in scalar code, so each step's rank-two
 * update of the trailing lower triangle and the next step's matrix-vector product share one
 * sweep over it (row-contiguous). Reflector j is stored in row j's unused upper part.
 */

export interface Tridiagonal {
  readonly n: number;
  readonly diag: Float64Array;
  readonly off: Float64Array;
  /** n×n; row j, columns j+1..n−1: reflector v_j (v_j[j+1] = 1). */
  readonly reflectors: Float64Array;
  /** H_j = I − tau[j]·v_j·v_jᵀ. */
  readonly tau: Float64Array;
}

export function reduceToTridiagonal(matrix: Float64Array, n: number): Tridiagonal {
  if (matrix.length !== n * n) throw new RangeError(`matrix has ${matrix.length} entries, expected ${n}×${n}`);
  const a = Float64Array.from(matrix);
  const diag = new Float64Array(n);
  const off = new Float64Array(n);
  const tau = new Float64Array(n);
  const p = new Float64Array(n);
  const w = new Float64Array(n);
  if (n > 0) diag[0] = a[0] as number;
  if (n === 2) off[0] = a[n] as number;
  if (n >= 2) diag[n - 1] = a[n * n - 1] as number;
  if (n < 3) return { n, diag, off, reflectors: a, tau };
  reflect(a, n, 0, off, tau);
  symmetricProduct(a, n, 1, p);
  for (let j = 0; j + 2 < n; j++) {
    const t = tau[j] as number;
    const v = j * n; // v_j[r] = a[v + r], r > j
    if (t !== 0) {
      // w = p − (τ/2)(pᵀv)·v with p = τ·A₂₂·v
      let pv = 0;
      for (let r = j + 1; r < n; r++) {
        p[r] = t * (p[r] as number);
        pv += (p[r] as number) * (a[v + r] as number);
      }
      const half = 0.5 * t * pv;
      for (let r = j + 1; r < n; r++) w[r] = (p[r] as number) - half * (a[v + r] as number);
      // Column j+1 first: the next reflector is built from it before the fused sweep.
      const wj = w[j + 1] as number;
      const vj = a[v + j + 1] as number;
      for (let r = j + 1; r < n; r++) {
        const at = r * n + j + 1;
        a[at] = (a[at] as number) - ((a[v + r] as number) * wj + (w[r] as number) * vj);
      }
    }
    const next = j + 1;
    diag[next] = a[next * n + next] as number;
    const hasNext = next + 2 < n;
    if (hasNext) reflect(a, n, next, off, tau);
    else off[next] = a[(next + 1) * n + next] as number;
    if (t !== 0) updateAndMultiply(a, n, j, w, hasNext, p);
    else if (hasNext) symmetricProduct(a, n, next + 1, p);
  }
  diag[n - 1] = a[n * n - 1] as number;
  return { n, diag, off, reflectors: a, tau };
}

/** Builds reflector j from column j below the diagonal; stores v_j in row j, β in off[j]. */
function reflect(a: Float64Array, n: number, j: number, off: Float64Array, tau: Float64Array): void {
  const alpha = a[(j + 1) * n + j] as number;
  let tail = 0;
  for (let r = j + 2; r < n; r++) tail += (a[r * n + j] as number) ** 2;
  const v = j * n;
  a[v + j + 1] = 1;
  if (tail === 0) {
    tau[j] = 0;
    off[j] = alpha;
    for (let r = j + 2; r < n; r++) a[v + r] = 0;
    return;
  }
  const beta = alpha >= 0 ? -Math.sqrt(alpha * alpha + tail) : Math.sqrt(alpha * alpha + tail);
  tau[j] = (beta - alpha) / beta;
  off[j] = beta;
  const scale = 1 / (alpha - beta);
  for (let r = j + 2; r < n; r++) a[v + r] = (a[r * n + j] as number) * scale;
}

/** p[from..] = A[from.., from..]·v_{from−1} over the lower triangle (τ not applied). */
function symmetricProduct(a: Float64Array, n: number, from: number, p: Float64Array): void {
  const v = (from - 1) * n;
  p.fill(0, from);
  for (let r = from; r < n; r++) {
    const row = r * n;
    const vr = a[v + r] as number;
    let sum = 0;
    for (let c = from; c < r; c++) {
      const x = a[row + c] as number;
      sum += x * (a[v + c] as number);
      p[c] = (p[c] as number) + x * vr;
    }
    p[r] = (p[r] as number) + sum + (a[row + r] as number) * vr;
  }
}

/**
 * A₂₂ ← A₂₂ − v·wᵀ − w·vᵀ on rows/columns ≥ j+2 (column j+1 is done), and, when the next
 * reflector exists, p = A₂₂(updated)·v_{j+1} accumulated in the same sweep. Rows go two at a
 * time so one load of w, v, v_{j+1} and p serves both; p[c] still receives row r's term before
 * row r+1's, and each row's sum runs over c in order, so the bits are those of one row at a time.
 */
function updateAndMultiply(a: Float64Array, n: number, j: number, w: Float64Array, multiply: boolean, p: Float64Array): void {
  const v = j * n;
  const from = j + 2;
  if (!multiply) {
    for (let r = from; r < n; r++) {
      const row = r * n;
      const vr = a[v + r] as number;
      const wr = w[r] as number;
      for (let c = from; c <= r; c++) a[row + c] = (a[row + c] as number) - (vr * (w[c] as number) + wr * (a[v + c] as number));
    }
    return;
  }
  p.fill(0, from);
  let r = from;
  for (; r + 1 < n; r += 2) updateTwoRows(a, n, j, w, p, r);
  if (r < n) updateRow(a, n, j, w, p, r);
}

/** One row r of updateAndMultiply. */
function updateRow(a: Float64Array, n: number, j: number, w: Float64Array, p: Float64Array, r: number): void {
  const v = j * n;
  const u = v + n; // v_{j+1}
  const row = r * n;
  const vr = a[v + r] as number;
  const wr = w[r] as number;
  const ur = a[u + r] as number;
  let sum = 0;
  for (let c = j + 2; c < r; c++) {
    const x = (a[row + c] as number) - (vr * (w[c] as number) + wr * (a[v + c] as number));
    a[row + c] = x;
    sum += x * (a[u + c] as number);
    p[c] = (p[c] as number) + x * ur;
  }
  const diagonal = (a[row + r] as number) - 2 * vr * wr;
  a[row + r] = diagonal;
  p[r] = (p[r] as number) + sum + diagonal * ur;
}

/** Rows r and r+1 of updateAndMultiply in one sweep, each entry's operations in updateRow's order. */
function updateTwoRows(a: Float64Array, n: number, j: number, w: Float64Array, p: Float64Array, r: number): void {
  const v = j * n;
  const u = v + n;
  const row0 = r * n;
  const row1 = row0 + n;
  const vr0 = a[v + r] as number;
  const wr0 = w[r] as number;
  const ur0 = a[u + r] as number;
  const vr1 = a[v + r + 1] as number;
  const wr1 = w[r + 1] as number;
  const ur1 = a[u + r + 1] as number;
  let sum0 = 0;
  let sum1 = 0;
  for (let c = j + 2; c < r; c++) {
    const wc = w[c] as number;
    const vc = a[v + c] as number;
    const uc = a[u + c] as number;
    const x0 = (a[row0 + c] as number) - (vr0 * wc + wr0 * vc);
    const x1 = (a[row1 + c] as number) - (vr1 * wc + wr1 * vc);
    a[row0 + c] = x0;
    a[row1 + c] = x1;
    sum0 += x0 * uc;
    sum1 += x1 * uc;
    p[c] = (p[c] as number) + x0 * ur0 + x1 * ur1;
  }
  const diagonal0 = (a[row0 + r] as number) - 2 * vr0 * wr0;
  a[row0 + r] = diagonal0;
  p[r] = (p[r] as number) + sum0 + diagonal0 * ur0;
  // Row r+1 at column r, then its diagonal, as updateRow would finish it.
  const x1 = (a[row1 + r] as number) - (vr1 * wr0 + wr1 * (a[v + r] as number));
  a[row1 + r] = x1;
  sum1 += x1 * ur0;
  p[r] = (p[r] as number) + x1 * ur1;
  const diagonal1 = (a[row1 + r + 1] as number) - 2 * vr1 * wr1;
  a[row1 + r + 1] = diagonal1;
  p[r + 1] = (p[r + 1] as number) + sum1 + diagonal1 * ur1;
}

/**
 * y ← Q·y = H₀(H₁(⋯H_{n−3}·y)) for `count` rows of n in `vectors`, four rows at a time: each
 * loaded reflector entry serves four products, and every row's dot product and update run over
 * the entries in the same order as one row alone would, so the bits do not depend on the grouping.
 */
export function applyQ(t: Tridiagonal, vectors: Float64Array, count: number): void {
  const { n, tau } = t;
  if (vectors.length < count * n) throw new RangeError(`${vectors.length} values hold fewer than ${count} vectors of ${n}`);
  let k = 0;
  for (; k + 4 <= count; k += 4) reflectFour(t, vectors, k * n);
  for (; k < count; k++) {
    for (let j = n - 3; j >= 0; j--) if (tau[j] !== 0) reflectOne(t, j, vectors, k * n);
  }
}

/** y ← H_j·y on the length-n row at offset y of `vectors` (entries ≤ j are untouched by H_j). */
function reflectOne({ n, reflectors, tau }: Tridiagonal, j: number, vectors: Float64Array, y: number): void {
  const v = j * n;
  let dot = 0;
  for (let r = j + 1; r < n; r++) dot += (reflectors[v + r] as number) * (vectors[y + r] as number);
  const f = (tau[j] as number) * dot;
  for (let r = j + 1; r < n; r++) vectors[y + r] = (vectors[y + r] as number) - f * (reflectors[v + r] as number);
}

/** The largest reflector index below `before` that is not the identity, or −1. */
function previousReflector(tau: Float64Array, before: number): number {
  let j = before - 1;
  while (j >= 0 && tau[j] === 0) j--;
  return j;
}

/**
 * Every reflector on the four rows starting at offset y, with each row's operations in
 * reflectOne's order. H_j's update and the next reflector's dot product share one sweep: the
 * next dot takes entries ≤ j first (H_j leaves them as they are), then each entry just updated.
 */
function reflectFour({ n, reflectors, tau }: Tridiagonal, vectors: Float64Array, y: number): void {
  const y1 = y + n;
  const y2 = y1 + n;
  const y3 = y2 + n;
  let j = previousReflector(tau, n - 2);
  let d0 = 0;
  let d1 = 0;
  let d2 = 0;
  let d3 = 0;
  for (let r = j + 1; j >= 0 && r < n; r++) {
    const h = reflectors[j * n + r] as number;
    d0 += h * (vectors[y + r] as number);
    d1 += h * (vectors[y1 + r] as number);
    d2 += h * (vectors[y2 + r] as number);
    d3 += h * (vectors[y3 + r] as number);
  }
  while (j >= 0) {
    const t = tau[j] as number;
    const f0 = t * d0;
    const f1 = t * d1;
    const f2 = t * d2;
    const f3 = t * d3;
    const v = j * n;
    const next = previousReflector(tau, j);
    const u = Math.max(next, 0) * n; // after the last reflector: row 0 is read, its sums dropped
    d0 = 0;
    d1 = 0;
    d2 = 0;
    d3 = 0;
    for (let r = next + 1; r <= j && next >= 0; r++) {
      const g = reflectors[u + r] as number;
      d0 += g * (vectors[y + r] as number);
      d1 += g * (vectors[y1 + r] as number);
      d2 += g * (vectors[y2 + r] as number);
      d3 += g * (vectors[y3 + r] as number);
    }
    for (let r = j + 1; r < n; r++) {
      const h = reflectors[v + r] as number;
      const g = reflectors[u + r] as number;
      const x0 = (vectors[y + r] as number) - f0 * h;
      const x1 = (vectors[y1 + r] as number) - f1 * h;
      const x2 = (vectors[y2 + r] as number) - f2 * h;
      const x3 = (vectors[y3 + r] as number) - f3 * h;
      vectors[y + r] = x0;
      vectors[y1 + r] = x1;
      vectors[y2 + r] = x2;
      vectors[y3 + r] = x3;
      d0 += g * x0;
      d1 += g * x1;
      d2 += g * x2;
      d3 += g * x3;
    }
    j = next;
  }
}
