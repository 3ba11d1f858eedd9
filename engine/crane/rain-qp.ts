/**
 * RAIN stage 2: the per-head merge coefficients α from a small box-constrained QP.
 *
 *   rainQpTerms(heads, settings)  → { hessian (diagonal), linear } from the two-pass statistics
 *   solveRainQp(problem)          → α minimising the reference's objective
 *
 * The reference (qp_true_forward_fast.py, "align_leak" two-pass variant) measures, per
 * (layer, head), over S instruction prompts: Σ Δa (how much the merged head's attention moves
 * toward the instruction spans), Σ Δu (how much the leak away from them grows) and Σ u₁ (the leak
 * after the merge). The QP is
 *
 *   minimise  ½ αᵀ H_eff α − b_effᵀ α + l1·‖α‖₁   subject to  lo ≤ α ≤ hi
 *   H = diag(S·hLambda + hMu·Σu₁ + 1e-6),  b = Σ Δa − rhoDu·Σ Δu
 *   H_eff = H + l2Prior·I (diagonal raised to ≥ 1e-6 as the reference's _sym_psd does),
 *   b_eff = b + l2Prior·α_prior
 *
 * The reference's H is diagonal, and its solver then takes a closed-form shortcut (soft-threshold,
 * divide by the diagonal plus a 1e-6 jitter, clip to the box); that shortcut is taken here too,
 * with the same "diagonal-like" test, so α matches it exactly. A general H (never produced by the
 * reference's builder, accepted for completeness) is solved by cyclic coordinate descent, whose
 * one-variable steps are exact, to the unique minimiser of the strictly convex problem.
 */

export interface RainHeadStatistics {
  /** Σ over prompts of the alignment change Δa. */
  readonly alignmentGain: number;
  /** Σ over prompts of the leak change Δu. */
  readonly leakGain: number;
  /** Σ over prompts of the post-merge leak u₁. */
  readonly leakAfter: number;
}

export interface RainQpSettings {
  readonly samples: number;
  readonly hLambda: number;
  readonly hMu: number;
  readonly rhoDu: number;
}

export interface BoxQp {
  readonly n: number;
  /** n×n row-major, symmetric. */
  readonly hessian: Float64Array;
  readonly linear: Float64Array;
  readonly prior: Float64Array;
  readonly l2Prior: number;
  readonly l1: number;
  readonly lo: number;
  readonly hi: number;
}

const CURVATURE_FLOOR = 1e-6;
const DIAGONAL_JITTER = 1e-6;
const DIAGONAL_LIKE_BELOW = 1e-3;
const MAX_SWEEPS = 10_000;
const STEP_TOLERANCE = 1e-13;

export function rainQpTerms(heads: readonly RainHeadStatistics[], settings: RainQpSettings): { hessian: Float64Array; linear: Float64Array } {
  const n = heads.length;
  const hessian = new Float64Array(n * n);
  const linear = new Float64Array(n);
  heads.forEach((head, i) => {
    hessian[i * n + i] = settings.samples * settings.hLambda + settings.hMu * head.leakAfter + CURVATURE_FLOOR;
    linear[i] = head.alignmentGain - settings.rhoDu * head.leakGain;
  });
  return { hessian, linear };
}

export function solveRainQp(problem: BoxQp): Float64Array {
  const { n, hessian, linear, prior, l2Prior, l1, lo, hi } = problem;
  if (hessian.length !== n * n || linear.length !== n || prior.length !== n) {
    throw new RangeError(`QP sizes disagree: hessian ${hessian.length}, linear ${linear.length}, prior ${prior.length}, n ${n}`);
  }
  if (!(lo <= hi)) throw new RangeError(`QP box is empty: lo ${lo} > hi ${hi}`);
  if (l1 < 0 || l2Prior < 0) throw new RangeError(`QP penalties must be ≥ 0 (l1 ${l1}, l2Prior ${l2Prior})`);
  const h = effectiveHessian(hessian, n, l2Prior);
  const b = linear.map((v, i) => v + l2Prior * (prior[i] as number));
  if (isDiagonalLike(h, n)) {
    return b.map((v, i) => clamp(softThreshold(v, l1) / ((h[i * n + i] as number) + DIAGONAL_JITTER), lo, hi));
  }
  return coordinateDescent(h, b, problem);
}

function effectiveHessian(hessian: Float64Array, n: number, l2Prior: number): Float64Array {
  const entry = (i: number, j: number): number => hessian[i * n + j] as number;
  let minDiagonal = Infinity;
  for (let i = 0; i < n; i++) minDiagonal = Math.min(minDiagonal, entry(i, i) + l2Prior);
  // The reference lifts the whole diagonal when its smallest entry falls below the floor.
  const lift = minDiagonal < CURVATURE_FLOOR ? 2 * CURVATURE_FLOOR - minDiagonal : 0;
  const h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) h[i * n + j] = 0.5 * (entry(i, j) + entry(j, i)) + (i === j ? l2Prior + lift : 0);
  }
  return h;
}

function isDiagonalLike(h: Float64Array, n: number): boolean {
  let off = 0;
  let all = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const v2 = (h[i * n + j] as number) ** 2;
      all += v2;
      if (i !== j) off += v2;
    }
  }
  return Math.sqrt(off) / (Math.sqrt(all) + 1e-12) < DIAGONAL_LIKE_BELOW;
}

function coordinateDescent(h: Float64Array, b: Float64Array, problem: BoxQp): Float64Array {
  const { n, l1, lo, hi, prior } = problem;
  const alpha = prior.map((v) => clamp(v, lo, hi));
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let largestStep = 0;
    for (let i = 0; i < n; i++) {
      let others = 0;
      for (let j = 0; j < n; j++) if (j !== i) others += (h[i * n + j] as number) * (alpha[j] as number);
      const next = clamp(softThreshold((b[i] as number) - others, l1) / (h[i * n + i] as number), lo, hi);
      largestStep = Math.max(largestStep, Math.abs(next - (alpha[i] as number)));
      alpha[i] = next;
    }
    if (largestStep <= STEP_TOLERANCE) return alpha;
  }
  throw new Error(`RAIN QP did not converge in ${MAX_SWEEPS} sweeps (Hessian badly conditioned?)`);
}

function softThreshold(x: number, t: number): number {
  return Math.sign(x) * Math.max(Math.abs(x) - t, 0);
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}
