/**
 * An independent, deliberately plain float64 formulation of CRANE, for cross-checking the engine
 * in tests. It shares no code with engine/crane or engine/linalg and computes differently:
 * a full sort for the median, explicit per-coordinate loops over number[] arrays, cyclic
 * Jacobi instead of Householder + QL, and the explicit d×d projector P = I − V diag(w) Vᵀ.
 */

/** T(δ) at q = 0.5: the lower median by full sort, strict >, ×2. */
export function referenceThreshold(delta: readonly number[]): number[] {
  const sorted = delta.map(Math.abs).sort((a, b) => a - b);
  const m = sorted[Math.max(1, Math.floor(delta.length / 2)) - 1] as number;
  return delta.map((d) => (Math.abs(d) > m ? 2 * d : 0));
}

export interface ScoredTensor {
  readonly group: string;
  readonly layer: number;
  readonly thetaI: readonly number[];
  readonly delta: readonly number[];
  readonly gradR: readonly number[];
  readonly gradA: readonly number[];
}

/** S_CTG per `${group}@${layer}` and per `${group}@*` (global), straight from the formulas. */
export function referenceGate(tensors: readonly ScoredTensor[], reference: string): Map<string, number> {
  const p = new Map<string, number>();
  const theta = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string, v: number) => map.set(key, (map.get(key) ?? 0) + v);
  for (const t of tensors) {
    for (let j = 0; j < t.delta.length; j++) {
      const sR = -(t.gradR[j] as number) * (t.delta[j] as number);
      const sA = -(t.gradA[j] as number) * (t.delta[j] as number);
      const pj = Math.max(0, Math.min(sR, sA));
      const th2 = (t.thetaI[j] as number) ** 2;
      for (const key of [`${t.group}@${t.layer}`, `${t.group}@*`]) {
        bump(p, key, pj);
        bump(theta, key, th2);
      }
    }
  }
  const raw = (key: string) => (p.get(key) ?? 0) / Math.sqrt(theta.get(key) as number);
  const out = new Map<string, number>();
  for (const key of p.keys()) {
    const [group, layer] = key.split('@') as [string, string];
    const denominator = raw(`${reference}@${layer}`);
    out.set(key, group === reference ? 1 : raw(key) / (denominator <= 0 ? 1e-12 : denominator));
  }
  return out;
}

/** A square float64 matrix, row-major, with plain element access. */
export class Matrix {
  readonly data: Float64Array;
  constructor(readonly n: number) {
    this.data = new Float64Array(n * n);
  }
  static identity(n: number): Matrix {
    const m = new Matrix(n);
    for (let i = 0; i < n; i++) m.set(i, i, 1);
    return m;
  }
  get(i: number, j: number): number {
    return this.data[i * this.n + j] as number;
  }
  set(i: number, j: number, v: number): void {
    this.data[i * this.n + j] = v;
  }
}

/** Eigen-decomposition by cyclic Jacobi rotations: eigenvalues and eigenvector columns. */
export function jacobiEigen(input: Matrix): { values: number[]; vectors: Matrix } {
  const n = input.n;
  const a = new Matrix(n);
  a.data.set(input.data);
  const v = Matrix.identity(n);
  // Apply the rotation (c, s) in the (p, q) plane to columns (right = true) or rows of m.
  const rotate = (m: Matrix, p: number, q: number, c: number, s: number, columns: boolean) => {
    for (let k = 0; k < n; k++) {
      const [ip, iq] = columns ? [[k, p], [k, q]] as const : [[p, k], [q, k]] as const;
      const xp = m.get(...ip);
      const xq = m.get(...iq);
      m.set(...ip, c * xp - s * xq);
      m.set(...iq, s * xp + c * xq);
    }
  };
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) off += a.get(i, j) ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a.get(p, q);
        if (apq === 0) continue;
        const theta = (a.get(q, q) - a.get(p, p)) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        rotate(a, p, q, c, s, true);
        rotate(a, p, q, c, s, false);
        rotate(v, p, q, c, s, true);
      }
    }
  }
  return { values: Array.from({ length: n }, (_, i) => a.get(i, i)), vectors: v };
}

/** P = I − V_r diag(w) V_rᵀ from captured rows H (N × d, row-major), with the spec's rank rules. */
export function referenceProjector(rows: readonly number[], d: number, tau: number, maxRank = 256, rankCut = 1e-5): Matrix {
  const gram = new Matrix(d);
  for (let r = 0; r < rows.length / d; r++) {
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) gram.set(i, j, gram.get(i, j) + (rows[r * d + i] as number) * (rows[r * d + j] as number));
  }
  const { values, vectors } = jacobiEigen(gram);
  const order = values.map((_, i) => i).sort((x, y) => (values[y] as number) - (values[x] as number));
  const sigma = order.map((i) => Math.sqrt(Math.max(values[i] as number, 0)));
  const s1 = sigma[0] as number;
  const projector = Matrix.identity(d);
  order.forEach((col, rank) => {
    const s = sigma[rank] as number;
    if (rank >= maxRank || !(s > rankCut * s1)) return;
    const w = 1 / (1 + Math.exp(-(4.6 / tau) * (s / s1 - tau)));
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) projector.set(i, j, projector.get(i, j) - w * vectors.get(i, col) * vectors.get(j, col));
  });
  return projector;
}

/** Δ·P for Δ stored row-major (rows × d). */
export function applyProjector(delta: readonly number[], projector: Matrix): number[] {
  const d = projector.n;
  const out: number[] = [];
  for (let r = 0; r < delta.length / d; r++) {
    for (let j = 0; j < d; j++) {
      let sum = 0;
      for (let i = 0; i < d; i++) sum += (delta[r * d + i] as number) * projector.get(i, j);
      out.push(sum);
    }
  }
  return out;
}
