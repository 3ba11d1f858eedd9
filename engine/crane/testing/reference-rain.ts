/**
 * Plain-loop restatements of RAIN's formulas (K1nght/RAIN-Merging as vendored by rpi-nsl/CRANE),
 * written independently of engine/crane/rain-*.ts so the tests compare two derivations:
 *   - the projection builds the full constraint matrix A (m × dIn·dOut) explicitly and solves
 *     (A Aᵀ + λI) z = A vec(Δ) by Gaussian elimination, Δ_proj = Δ − Aᵀ z;
 *   - the box QP is solved by enumerating every active set (each coordinate at lo, at hi, at 0,
 *     or free with a fixed sign) and keeping the feasible candidate of least objective;
 *   - the merge writes each head's edit into a weight-shaped array through explicit transposes.
 */

type Grid = readonly (readonly number[])[];
const at = (values: readonly number[], i: number): number => values[i] as number;
const cell = (grid: Grid, i: number, j: number): number => (grid[i] as readonly number[])[j] as number;

export function referenceProjectSlice(
  delta: readonly number[], dIn: number, dOut: number,
  x: readonly (readonly number[])[], r: readonly (readonly number[])[], s: readonly number[], ridge: number,
): number[] {
  const m = s.length;
  if (m === 0) return [...delta];
  const a: number[][] = [];
  for (let i = 0; i < m; i++) {
    const row: number[] = [];
    for (let p = 0; p < dIn; p++) for (let q = 0; q < dOut; q++) row.push(at(s, i) * cell(x, i, p) * cell(r, i, q));
    a.push(row);
  }
  const g: number[][] = [];
  const rhs: number[] = [];
  for (let i = 0; i < m; i++) {
    const gRow: number[] = [];
    for (let j = 0; j < m; j++) {
      let sum = i === j ? ridge : 0;
      for (let k = 0; k < dIn * dOut; k++) sum += cell(a, i, k) * cell(a, j, k);
      gRow.push(sum);
    }
    g.push(gRow);
    let sum = 0;
    for (let k = 0; k < dIn * dOut; k++) sum += cell(a, i, k) * at(delta, k);
    rhs.push(sum);
  }
  const z = gaussianSolve(g, rhs);
  return delta.map((d, k) => {
    let sum = d;
    for (let i = 0; i < m; i++) sum -= cell(a, i, k) * at(z, i);
    return sum;
  });
}

/** Gauss–Jordan elimination with partial pivoting on [A | b]. */
export function gaussianSolve(matrix: Grid, rhs: readonly number[]): number[] {
  const n = rhs.length;
  const m = matrix.map((row, i) => [...row, at(rhs, i)]);
  const rowOf = (i: number): number[] => m[i] as number[];
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let i = c + 1; i < n; i++) if (Math.abs(cell(m, i, c)) > Math.abs(cell(m, pivot, c))) pivot = i;
    const pivotRow = rowOf(pivot);
    m[pivot] = rowOf(c);
    m[c] = pivotRow;
    for (let i = 0; i < n; i++) {
      if (i === c) continue;
      const f = cell(m, i, c) / cell(m, c, c);
      const target = rowOf(i);
      for (let k = c; k <= n; k++) target[k] = at(target, k) - f * at(pivotRow, k);
    }
  }
  return m.map((row, i) => at(row, n) / at(row, i));
}

/** min ½αᵀHα − bᵀα + l1‖α‖₁ on [lo, hi]ⁿ for symmetric positive-definite H, by enumeration. */
export function bruteForceBoxQp(h: Grid, b: readonly number[], l1: number, lo: number, hi: number): number[] {
  const n = b.length;
  const objective = (v: readonly number[]): number => {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum -= at(b, i) * at(v, i) - l1 * Math.abs(at(v, i));
      for (let j = 0; j < n; j++) sum += 0.5 * at(v, i) * cell(h, i, j) * at(v, j);
    }
    return sum;
  };
  // 0 = lo, 1 = hi, 2 = zero, 3 = free positive, 4 = free negative
  let best: number[] | undefined;
  for (let code = 0; code < 5 ** n; code++) {
    const state = Array.from({ length: n }, (_, i) => Math.floor(code / 5 ** i) % 5);
    if (state.some((st) => st === 2) && !(lo <= 0 && 0 <= hi)) continue;
    const fixed = state.map((st) => (st === 0 ? lo : st === 1 ? hi : 0));
    const free = state.flatMap((st, i) => (st >= 3 ? [i] : []));
    const candidate = [...fixed];
    if (free.length > 0) {
      const sub = free.map((i) => free.map((j) => cell(h, i, j)));
      const rhs = free.map((i) => {
        let v = at(b, i) - (state[i] === 3 ? l1 : -l1);
        for (let j = 0; j < n; j++) if (!free.includes(j)) v -= cell(h, i, j) * at(fixed, j);
        return v;
      });
      gaussianSolve(sub, rhs).forEach((v, k) => { candidate[at(free, k)] = v; });
    }
    const feasible = candidate.every((v, i) => v >= lo - 1e-12 && v <= hi + 1e-12 && (state[i] !== 3 || v >= 0) && (state[i] !== 4 || v <= 0));
    if (feasible && (best === undefined || objective(candidate) < objective(best) - 1e-15)) best = candidate;
  }
  if (best === undefined) throw new Error('no feasible active set');
  return best;
}

export interface ReferenceHead { head: number; alpha: number; x: number[][]; r: number[][]; s: number[] }

/** thinking + Σ_h α_h proj_h(τ_h) on a [rows, cols] projection weight, written out per element. */
export function referenceRainMerge(
  kind: 'q' | 'k' | 'v' | 'o', rows: number, cols: number,
  base: readonly number[], instruct: readonly number[], thinking: readonly number[],
  headDim: number, kvHeads: number, heads: readonly ReferenceHead[], ridge: number,
): number[] {
  const out = [...thinking];
  const tau = instruct.map((v, k) => v - at(base, k));
  for (const hd of heads) {
    const kvh = hd.head % kvHeads;
    // The d_model × head_dim slice, as torch's W[rows].T / W[:, cols] would give it.
    const slice: number[] = [];
    const index: number[] = [];
    const dModel = kind === 'o' ? rows : cols;
    for (let a = 0; a < dModel; a++) {
      for (let b = 0; b < headDim; b++) {
        let k: number;
        if (kind === 'o') k = a * cols + hd.head * headDim + b;
        else if (kind === 'q') k = (hd.head * headDim + b) * cols + a;
        else k = (kvh * headDim + b) * cols + a;
        slice.push(at(tau, k));
        index.push(k);
      }
    }
    const projected = referenceProjectSlice(slice, dModel, headDim, hd.x, hd.r, hd.s, ridge);
    projected.forEach((v, p) => { out[at(index, p)] = at(out, at(index, p)) + hd.alpha * v; });
  }
  return out;
}

/** RAIN's Q/K/V/O constraint rows for one head, from full matrix products (K = X W_Kᵀ, …). */
export function referenceHeadConstraints(
  x: Grid, wq: Grid, wk: Grid, wv: Grid, wo: Grid, attention: Grid,
  head: number, headDim: number, kvHeads: number,
  pairsQ: readonly (readonly [number, number])[], pairsK: readonly (readonly [number, number])[],
  positionsV: readonly number[], positionsO: readonly number[], readouts: Grid, w: { q: number; k: number; v: number; o: number },
): Record<'q' | 'k' | 'v' | 'o', { x: number[][]; r: number[][]; s: number[] }> {
  const matmulT = (a: Grid, b: Grid): number[][] => a.map((row) => b.map((bRow) => row.reduce((sum, v, k) => sum + v * at(bRow, k), 0)));
  const [qAll, kAll, vAll] = [matmulT(x, wq), matmulT(x, wk), matmulT(x, wv)];
  const kvh = head % kvHeads;
  const cols = (m: Grid, block: number) => m.map((row) => row.slice(block * headDim, (block + 1) * headDim));
  const [qH, kH, vH] = [cols(qAll, head), cols(kAll, kvh), cols(vAll, kvh)];
  const oH = cols(wo, head); // d_model × hD
  const weighted = (t: number, m: Grid) => (m[0] as readonly number[]).map((_, a) => m.reduce((sum, row, tau) => sum + cell(attention, t, tau) * at(row, a), 0));
  const oT = (c: readonly number[]) => Array.from({ length: headDim }, (_, b) => oH.reduce((sum, row, a) => sum + at(row, b) * at(c, a), 0));
  const scaled = (weight: number, n: number) => new Array<number>(n).fill(weight / Math.sqrt(headDim));
  const vRows = positionsV.flatMap((t) => readouts.map((c) => ({ x: weighted(t, x), r: oT(c) })));
  const oRows = positionsO.flatMap((t) => readouts.map((c) => ({ x: [...c], r: weighted(t, vH) })));
  return {
    q: { x: pairsQ.map(([i]) => [...(x[i] ?? [])]), r: pairsQ.map(([, j]) => kH[j] ?? []), s: scaled(w.q, pairsQ.length) },
    k: { x: pairsK.map(([, j]) => [...(x[j] ?? [])]), r: pairsK.map(([i]) => qH[i] ?? []), s: scaled(w.k, pairsK.length) },
    v: { x: vRows.map((row) => row.x), r: vRows.map((row) => row.r), s: scaled(w.v, vRows.length) },
    o: { x: oRows.map((row) => row.x), r: oRows.map((row) => row.r), s: scaled(w.o, oRows.length) },
  };
}

/** softmax over the causal prefix of (Q Kᵀ)/√hD for query head `head`, K repeated per group. */
export function referenceAttentionRows(x: Grid, wq: Grid, wk: Grid, head: number, headDim: number, heads: number, kvHeads: number): number[][] {
  const rep = heads / kvHeads;
  const project = (w: Grid, block: number) => x.map((row) => Array.from({ length: headDim }, (_, b) => row.reduce((sum, v, a) => sum + v * cell(w, block * headDim + b, a), 0)));
  const q = project(wq, head);
  // repeat_interleave(rep) puts kv head j at query heads j·rep … j·rep + rep − 1
  const kvOf = Array.from({ length: heads }, (_, h) => Math.floor(h / rep));
  const k = project(wk, at(kvOf, head));
  return q.map((qi, i) => {
    const scores = k.map((kj, j) => (j <= i ? qi.reduce((sum, v, b) => sum + v * at(kj, b), 0) / Math.sqrt(headDim) : -Infinity));
    const exps = scores.map((v) => Math.exp(v));
    const total = exps.reduce((sum, v) => sum + v, 0);
    return exps.map((v) => v / total);
  });
}

export interface ReferenceInstruction { readonly i: readonly number[]; readonly r: readonly number[]; readonly u: readonly number[]; readonly rCount: number; readonly uCount: number }

/**
 * RAIN's alignment/leak as masked matrix products: 1_Iᵀ A 1_R with 0/1 indicator vectors over the
 * T positions (out-of-range indices never set a mask bit), each divided by its span count.
 */
export function referenceAlignLeak(attention: Grid, instructions: readonly ReferenceInstruction[], globalU: readonly number[], globalCount: number): { a: number; u: number } {
  const t = attention.length;
  const mask = (indices: readonly number[]) => Array.from({ length: t }, (_, k) => (indices.includes(k) ? 1 : 0));
  const bilinear = (left: readonly number[], right: readonly number[]) => {
    let sum = 0;
    for (let p = 0; p < t; p++) for (let q = 0; q < t; q++) sum += at(left, p) * cell(attention, p, q) * at(right, q);
    return sum;
  };
  let a = 0;
  let u = 0;
  for (const k of instructions) {
    const rows = mask(k.i);
    a += bilinear(rows, mask(k.r)) / Math.max(1, k.rCount);
    u += bilinear(rows, mask(k.u)) / Math.max(1, k.uCount) + bilinear(rows, mask(globalU)) / Math.max(1, globalCount);
  }
  return { a, u };
}
