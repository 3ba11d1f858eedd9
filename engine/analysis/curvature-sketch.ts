/**
 * The curvature matrix M (B×B, Δ_bᵀHΔ_b') from a few probe columns instead of B, for a model
 * with more edit directions than the stage can afford a backward pass each.
 *
 *   probeCells(directions, budget) → number[][]        which directions each probe moves together
 *   sketchedCurvature(probes, columns, size) → LowRank  M̃ from W (the probes) and Y ≈ M·W
 *
 * Probes. The preview is mostly asked about the default edit c(α) = c_const + α·c_α (the think
 * rows and lm_head blend are α-free, everything else scales with α), so the first two cells are
 * those two parts: c(α) is in the probes' span at every α and the sketch is exact along it. The
 * remaining budget refines the cells the way the sliders move the edit: each special direction
 * alone, the final norm and each layer group (attention, ffn, norm, …) apart — each step only
 * when all of it fits — then the largest cell with layer blocks halved by layer range until the
 * budget is used. A probe is the default coefficients
 * restricted to its cell (curvature-stage.ts), so any setting that scales whole cells is in the
 * span too.
 *
 * Reconstruction. With Q an orthonormal basis of span(W) and Z = M·Q (from Y by the same
 * combinations that made Q from W),
 *   M̃ = Z·Qᵀ + Q·Zᵀ − Q·S·Qᵀ,   S = (QᵀZ + ZᵀQ)/2,
 * i.e. M̃ = PM + MP − PMP with P = QQᵀ: symmetric, equal to M whenever either side is in span(W)
 * (xᵀM̃y = xᵀMy if x or y ∈ span(W)), and off it what is dropped is exactly (I−P)M(I−P), the
 * curvature between the parts of two vectors that no probe touched. Not the Nyström form
 * Y(WᵀY)⁺Yᵀ: a loss Hessian is indefinite, WᵀMW can be near singular, and the pseudo-inverse
 * would amplify the finite-difference noise of Y without bound; this form inverts nothing.
 * S symmetrised plays the part of the dense path's (M + Mᵀ)/2.
 * M̃ has rank ≤ 2k: it is stored as its eigenpairs (curvature-operator.ts's low-rank form) with
 * Q as `span`, so the operator can say when a c leaves the measured span.
 */
import type { EditDirection } from '../crane/edit-directions.ts';
import { symmetricEigen } from '../linalg/symmetric-eigen.ts';
import type { LowRankCurvature } from './curvature-operator.ts';

/** Columns whose remaining norm is below this share of their own norm are dependent and dropped. */
const DEPENDENT = 1e-10;

export function probeCells(directions: readonly EditDirection[], budget: number): number[][] {
  if (!Number.isInteger(budget) || budget < 2) throw new RangeError(`a curvature sketch needs at least 2 probes, got ${budget}`);
  const all = directions.map((_, b) => b);
  const constant = all.filter((b) => (directions[b] as EditDirection).coefficient !== 'alpha-scale');
  const perAlpha = all.filter((b) => (directions[b] as EditDirection).coefficient === 'alpha-scale');
  let cells = [constant, perAlpha].filter((cell) => cell.length > 0);
  // Each special direction alone, then the α part by group: taken only whole, when it fits.
  const refinements = [
    (c: number[][]) => [...constant.map((b) => [b]), ...c.slice(constant.length > 0 ? 1 : 0)],
    (c: number[][]) => [...c.filter((cell) => cell !== perAlpha), ...byGroup(perAlpha, directions)],
  ];
  for (const refine of refinements) {
    const refined = refine(cells);
    if (refined.length <= budget) cells = refined;
  }
  while (cells.length < budget) {
    const widest = cells.reduce((best, cell, i) => (hasLayers(cell, directions) && cell.length > (cells[best]?.length ?? 0) ? i : best), -1);
    if (widest < 0 || (cells[widest]?.length ?? 0) < 2) break;
    const cell = cells[widest] as number[];
    const sorted = [...cell].sort((a, b) => compareLayers(layerOf(directions[a] as EditDirection), layerOf(directions[b] as EditDirection)) || a - b);
    const half = Math.ceil(sorted.length / 2);
    cells.splice(widest, 1, sorted.slice(0, half), sorted.slice(half));
  }
  return cells;
}

function compareLayers(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function byGroup(cell: readonly number[], directions: readonly EditDirection[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const b of cell) {
    const d = directions[b] as EditDirection;
    const key = d.key.includes('@') ? d.group : d.key;
    groups.set(key, [...(groups.get(key) ?? []), b]);
  }
  return [...groups.values()];
}

/** A cell with layer blocks (`group@layer` keys): one a layer range can split. */
function hasLayers(cell: readonly number[], directions: readonly EditDirection[]): boolean {
  return cell.some((b) => (directions[b] as EditDirection).key.includes('@'));
}

/** A block's layer; the final norm (no layer) sorts after the last one, into the last range. */
function layerOf(direction: EditDirection): number {
  const at = direction.key.lastIndexOf('@');
  return at < 0 ? Number.POSITIVE_INFINITY : Number(direction.key.slice(at + 1));
}

/**
 * M̃ from probes W (k vectors of `size`) and columns Y_j ≈ M·W_j, as eigenpairs plus the span.
 * Dependent probes are dropped (their columns carry no new direction).
 */
export function sketchedCurvature(probes: readonly Float64Array[], columns: readonly Float64Array[], size: number): LowRankCurvature & { readonly span: readonly number[] } {
  if (probes.length !== columns.length) throw new RangeError(`${probes.length} probes but ${columns.length} measured columns`);
  for (const v of [...probes, ...columns]) if (v.length !== size) throw new RangeError(`a probe or column of ${v.length} values for ${size} directions`);
  const q = orthonormal(probes);
  const z = q.combinations.map((t) => combine(columns, t, size));
  const r = q.basis.length;
  // G = [Q | Z] and M̃ = G·C·Gᵀ with C = [[−S, I], [I, 0]].
  const g = [...q.basis, ...z];
  const middle = new Float64Array(4 * r * r);
  for (let i = 0; i < r; i++) {
    for (let j = 0; j < r; j++) middle[i * 2 * r + j] = -(dotOf(q.basis[i] as Float64Array, z[j] as Float64Array) + dotOf(z[i] as Float64Array, q.basis[j] as Float64Array)) / 2;
    middle[i * 2 * r + r + i] = 1;
    middle[(r + i) * 2 * r + i] = 1;
  }
  // G = U·P with U orthonormal (P = UᵀG), so M̃ = U·(P C Pᵀ)·Uᵀ: the eigenpairs of the small core.
  const u = orthonormal(g).basis;
  const p = u.map((ui) => g.map((gm) => dotOf(ui, gm)));
  const n = u.length;
  const core = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      let sum = 0;
      for (let i = 0; i < 2 * r; i++) for (let j = 0; j < 2 * r; j++) sum += (p[a]?.[i] as number) * (middle[i * 2 * r + j] as number) * (p[b]?.[j] as number);
      core[a * n + b] = sum;
    }
  }
  for (let a = 0; a < n; a++) for (let b = 0; b < a; b++) core[a * n + b] = core[b * n + a] = ((core[a * n + b] as number) + (core[b * n + a] as number)) / 2;
  const { values, vectors } = symmetricEigen(core, n);
  const factor = new Array<number>(size * n).fill(0);
  for (let e = 0; e < n; e++) {
    for (let a = 0; a < n; a++) {
      const weight = vectors[e * n + a] as number;
      const ua = u[a] as Float64Array;
      for (let b = 0; b < size; b++) factor[b * n + e] = (factor[b * n + e] as number) + weight * (ua[b] as number);
    }
  }
  const span = new Array<number>(size * r);
  q.basis.forEach((qi, i) => qi.forEach((x, b) => (span[b * r + i] = x)));
  return { diagonal: new Array<number>(size).fill(0), vectors: factor, weights: Array.from(values), dropped: 0, span };
}

/** Modified Gram–Schmidt (twice, for orthogonality in floating point), with each basis vector as a combination of the inputs. */
function orthonormal(vectors: readonly Float64Array[]): { basis: Float64Array[]; combinations: Float64Array[] } {
  const basis: Float64Array[] = [];
  const combinations: Float64Array[] = [];
  vectors.forEach((v, k) => {
    const w = Float64Array.from(v);
    const t = new Float64Array(vectors.length);
    t[k] = 1;
    const norm = Math.sqrt(dotOf(w, w));
    for (let sweep = 0; sweep < 2; sweep++) {
      basis.forEach((qi, i) => {
        const projection = dotOf(qi, w);
        const ti = combinations[i] as Float64Array;
        for (let b = 0; b < w.length; b++) w[b] = (w[b] as number) - projection * (qi[b] as number);
        for (let j = 0; j < t.length; j++) t[j] = (t[j] as number) - projection * (ti[j] as number);
      });
    }
    const left = Math.sqrt(dotOf(w, w));
    if (left <= DEPENDENT * norm || left === 0) return;
    basis.push(w.map((x) => x / left));
    combinations.push(t.map((x) => x / left));
  });
  return { basis, combinations };
}

function combine(columns: readonly Float64Array[], weights: Float64Array, size: number): Float64Array {
  const out = new Float64Array(size);
  columns.forEach((column, j) => {
    const w = weights[j] as number;
    if (w !== 0) for (let b = 0; b < size; b++) out[b] = (out[b] as number) + w * (column[b] as number);
  });
  return out;
}

function dotOf(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
