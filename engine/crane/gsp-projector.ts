/**
 * Stage 3 of CRANE: Graduated Sigmoidal Projection (GSP).
 *
 *   projectorFromGram(gram, d, options?) → GspProjector   (V_r and σ of one layer/key)
 *   projectorOfRows(accumulator, options?) → GspProjector | undefined   (none from < 2 rows or rank 0)
 *   w = sigmoidWeights(σ, τ, k) from protocol/gsp-mask.ts (per-direction protection)
 *   projectInputSide(delta, dIn, projector, w) → Δ'       (Δ' = Δ − Δ·V_r·diag(w)·V_rᵀ)
 *
 * σ_i = sqrt(max(λ_i, 0)) from the eigenvalues of HᵀH; at most r_max = 256 directions are
 * kept, and only those with σ_i > 1e-5·σ_1. Given the number n of rows H has, at most n are
 * kept and n < 2 gives none, as the reference (k = min(r_max, n, d); no projector from n < 2):
 * projectorOfRows turns that into no projector at all. w_i = sigmoid(k·(σ_i/σ_1 − τ)), τ = 0.03 and
 * k = 4.6/τ by default: w ≈ 0.01 at σ_i/σ_1 = 0, 0.5 at τ, ≈ 0.99 at 2τ. Strong format
 * directions (w ≈ 1) are removed from the delta's input side; weak ones pass.
 *
 * Weights are stored PyTorch-style (d_out × d_in); any tensor whose LAST dimension is d_in
 * works (fused 3-D expert tensors are rows of d_in too). The projection costs
 * O(d_out·d_in·r): per output row, c = (Δ_o·V)⊙w, then Δ'_o = Δ_o − c·Vᵀ, never forming
 * the d_in×d_in projector.
 */
import { projectRow, transposedBasis, type RowView } from '../linalg/row-projection.ts';
import { ProjectionBasis } from '../linalg/row-projection-kernel.ts';
import { thinGramEigen } from '../linalg/thin-gram-eigen.ts';
import { topSymmetricEigen, type TopSymmetricEigen } from '../linalg/top-symmetric-eigen.ts';
import { DEFAULT_ANALYSIS_KNOBS } from '../protocol/settings-defaults.ts';
import type { GramAccumulator } from './gram-accumulator.ts';

export interface GspProjector {
  readonly dim: number;
  readonly rank: number;
  /** V_r, d × r row-major: basis[j*rank + i] is coordinate j of direction i. */
  readonly basis: Float32Array;
  /** σ_1 ≥ … ≥ σ_r > rankCut·σ_1. */
  readonly sigma: Float64Array;
}

export interface ProjectorOptions {
  readonly maxRank?: number;
  readonly rankCut?: number;
  /** Rows of H behind the Gram matrix; absent = not known (no cap). */
  readonly rowCount?: number;
}

/** The reference's smallest sample a projector is computed from. */
export const MIN_PROJECTOR_ROWS = 2;

export function projectorFromGram(gram: Float64Array, dim: number, options: ProjectorOptions = {}): GspProjector {
  return projectorOf(dim, options, (wanted) => topSymmetricEigen(gram, dim, wanted));
}

/**
 * The projector of a key's captured rows, or undefined when they give no direction (fewer than
 * 2 rows, or all zero): the reference stores no projector then, and the edit leaves the key's
 * tensors unprojected. A small sample is solved from its rows (thin-gram-eigen.ts), a large one
 * from its Gram matrix; both give HᵀH's eigenpairs to rounding.
 */
export function projectorOfRows(rows: GramAccumulator, options: Omit<ProjectorOptions, 'rowCount'> = {}): GspProjector | undefined {
  if (rows.rowCount < MIN_PROJECTOR_ROWS) return undefined;
  const { dim, rowCount } = rows;
  const kept = rows.keptRows();
  const projector = projectorOf(dim, { ...options, rowCount }, (wanted) =>
    kept === undefined ? topSymmetricEigen(rows.gram(), dim, wanted) : thinGramEigen(kept, rowCount, dim, wanted));
  return projector.rank > 0 ? projector : undefined;
}

/** V_r and σ from a solver that computes only the leading vectors it is asked for (r of d). */
function projectorOf(dim: number, options: ProjectorOptions, solve: (wanted: (values: Float64Array) => number) => TopSymmetricEigen): GspProjector {
  const maxRank = options.maxRank ?? DEFAULT_ANALYSIS_KNOBS.gsp.maxRank;
  const rankCut = options.rankCut ?? DEFAULT_ANALYSIS_KNOBS.gsp.rankCut;
  const rows = options.rowCount ?? Infinity;
  const rankLimit = rows < MIN_PROJECTOR_ROWS ? 0 : Math.min(maxRank, dim, rows);
  let singular = new Float64Array(0);
  const { vectors, count: rank } = solve((values) => {
    singular = values.map((lambda) => Math.sqrt(Math.max(lambda, 0)));
    const sigma1 = singular[0] ?? 0;
    let kept = 0;
    while (kept < rankLimit && (singular[kept] as number) > rankCut * sigma1) kept++;
    return kept;
  });
  const basis = new Float32Array(dim * rank);
  for (let i = 0; i < rank; i++) {
    for (let j = 0; j < dim; j++) basis[j * rank + i] = vectors[i * dim + j] as number;
  }
  return { dim, rank, basis, sigma: singular.slice(0, rank) };
}

export function projectInputSide(delta: Float32Array, dIn: number, projector: GspProjector, weights: Float64Array): Float32Array {
  const { rank } = projector;
  if (projector.dim !== dIn) throw new RangeError(`projector is ${projector.dim}-wide, the tensor's input side is ${dIn}`);
  if (delta.length % dIn !== 0) throw new RangeError(`${delta.length} values are not rows of ${dIn}`);
  if (weights.length !== rank) throw new RangeError(`${weights.length} weights for ${rank} directions`);
  // Per block of four rows: c = (Δ_o·V)⊙w, then Δ'_o = Δ_o − V·c, both as register-blocked dot
  // products (linalg/row-projection.ts; four rows at a time by its WebAssembly SIMD kernel,
  // bit-identical). V·c reads V as d_in "directions" of length r.
  const basisT = transposedBasis(projector.basis, dIn, rank);
  const basis = Float64Array.from(projector.basis);
  const [coordinates, reconstruction] = [new ProjectionBasis(basisT, rank), new ProjectionBasis(basis, dIn)];
  const out = new Float32Array(delta.length);
  const rows = delta.length / dIn;
  const coefficients = new Float64Array(4 * rank);
  const removed = new Float64Array(4 * dIn);
  const coefficientRows = [0, 1, 2, 3].map((k) => ({ values: coefficients, offset: k * rank })) as [RowView, RowView, RowView, RowView];
  for (let row = 0; row < rows; row += 4) {
    const block = Math.min(4, rows - row);
    if (block === 4) {
      const views = [0, 1, 2, 3].map((k) => ({ values: delta, offset: (row + k) * dIn })) as [RowView, RowView, RowView, RowView];
      coordinates.projectFourRows(views, coefficients);
    } else {
      for (let k = 0; k < block; k++) projectRow({ values: delta, offset: (row + k) * dIn }, basisT, rank, coefficients.subarray(k * rank));
    }
    for (let k = 0; k < block; k++) for (let i = 0; i < rank; i++) coefficients[k * rank + i] = (coefficients[k * rank + i] as number) * (weights[i] as number);
    if (block === 4) reconstruction.projectFourRows(coefficientRows, removed);
    else for (let k = 0; k < block; k++) projectRow(coefficientRows[k] as RowView, basis, dIn, removed.subarray(k * dIn));
    for (let k = 0; k < block; k++) {
      const at = (row + k) * dIn;
      for (let j = 0; j < dIn; j++) out[at + j] = (delta[at + j] as number) - (removed[k * dIn + j] as number);
    }
  }
  return out;
}
