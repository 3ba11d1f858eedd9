/**
 * The preview's terms beyond the layer tensors' first order: the special tensors' gradients and
 * the curvature of both losses along the edit's directions (preview-curvature.ts).
 *
 *   const terms = new QuadraticTerms(curvature, coarseBlocks, fineBlocks)
 *   terms.evaluate(coefficients) → QuadraticResult     every preview call
 *
 * With c_b the coefficient of direction b at the settings (α·S_b for blocks and the final norm,
 * thinkRows for think rows, lmHeadScale for the lm_head blend), for each loss K:
 *   ΔL_K ≈ [layer first order, preview.ts] + Σ_{special b} c_b g_K·Δ_b + ½ Σ_{b,b'} c_b c_b' M_K[b,b']
 * The layer blocks' first order is left to the entries (exact at any τ/k/toggle); only the
 * directions outside the layers add first-order terms here. Every c_b is c_const + α·c_per_α, so
 * along α these terms are a line f0 + f1·α and a parabola q0 + q1·α + q2·α²: all the curve needs.
 * The curvature's share of one direction is ½ c_b (M c)_b: the shares sum to ½ cᵀMc.
 * Fine-granularity S (or fine overrides) enter through the coarse block's coordinate-weighted
 * mean S where the curvature was measured per coarse block (the curvature stage); a direction
 * keyed by a fine block (one expert) takes that block's own S.
 * M is applied through curvature-operator.ts: B² per mat-vec dense, 2·B·k in low-rank form, and
 * two mat-vecs per loss and call (c_const and c_α).
 */
import type { EditDirection, EditGroup } from '../crane/edit-directions.ts';
import { curvatureOperator, type CurvatureOperator } from './curvature-operator.ts';
import { curvatureMatrix, type PreviewCurvature } from './preview-curvature.ts';

/** The coefficients of the current settings, split into what α multiplies and what it does not. */
export interface DirectionInputs {
  /** S per coarse block, in the `coarseBlocks` order given to the constructor. */
  readonly coarseScale: Float64Array;
  /** S per fine block, in the `fineBlocks` order. */
  readonly fineScale: Float64Array;
  /** S of the final norm (the global norm block). */
  readonly finalNormScale: number;
  readonly alpha: number;
  readonly thinkRows: number;
  readonly lmHeadScale: number;
}

export interface LossTerms {
  readonly reasoning: number;
  readonly agent: number;
}

export interface QuadraticResult {
  /** Per direction group: the first-order (special tensors only) and second-order terms at α. */
  readonly byGroup: ReadonlyMap<EditGroup, { readonly firstOrder: LossTerms; readonly secondOrder: LossTerms }>;
  /** f0 + f1·α per loss: the first-order terms of the directions outside the layers. */
  readonly firstOrderLine: { readonly reasoning: readonly [number, number]; readonly agent: readonly [number, number] };
  /** q0 + q1·α + q2·α² per loss: ½ cᵀMc. */
  readonly curvature: { readonly reasoning: readonly [number, number, number]; readonly agent: readonly [number, number, number] };
  /** How far ½ cᵀMc at α can be from the untruncated curvature's (0 unless a low-rank form dropped eigenvalues). */
  readonly curvatureErrorBound: LossTerms;
}

interface GroupTerms {
  readonly firstOrder: { reasoning: number; agent: number };
  readonly secondOrder: { reasoning: number; agent: number };
}

export class QuadraticTerms {
  private readonly coarseIndex: Int32Array;
  private readonly fineIndex: Int32Array;
  private readonly constant: Float64Array;
  private readonly perAlpha: Float64Array;
  private readonly current: Float64Array;
  private readonly operators: Readonly<Record<keyof LossTerms, CurvatureOperator>>;
  private readonly mConstant: Float64Array;
  private readonly mPerAlpha: Float64Array;

  constructor(private readonly curvature: PreviewCurvature, coarseBlocks: readonly string[], fineBlocks: readonly string[]) {
    const coarse = new Map(coarseBlocks.map((key, i) => [key, i]));
    const fine = new Map(fineBlocks.map((key, i) => [key, i]));
    this.coarseIndex = Int32Array.from(curvature.directions, (d) => coarse.get(d.key) ?? -1);
    this.fineIndex = Int32Array.from(curvature.directions, (d, b) => ((this.coarseIndex[b] as number) < 0 ? fine.get(d.key) ?? -1 : -1));
    const size = curvature.directions.length;
    this.constant = new Float64Array(size);
    this.perAlpha = new Float64Array(size);
    this.current = new Float64Array(size);
    this.mConstant = new Float64Array(size);
    this.mPerAlpha = new Float64Array(size);
    this.operators = { reasoning: curvatureOperator(curvatureMatrix(curvature, 'reasoning'), size), agent: curvatureOperator(curvatureMatrix(curvature, 'agent'), size) };
  }

  evaluate(inputs: DirectionInputs): QuadraticResult {
    this.splitCoefficients(inputs);
    const byGroup = new Map<EditGroup, GroupTerms>();
    for (const d of this.curvature.directions) if (!byGroup.has(d.group)) byGroup.set(d.group, { firstOrder: { reasoning: 0, agent: 0 }, secondOrder: { reasoning: 0, agent: 0 } });
    const reasoning = this.lossTerms('reasoning', inputs.alpha, byGroup);
    const agent = this.lossTerms('agent', inputs.alpha, byGroup);
    const bound = (loss: keyof LossTerms) => 0.5 * this.operators[loss].errorBound(this.current);
    return {
      byGroup,
      firstOrderLine: { reasoning: reasoning.line, agent: agent.line },
      curvature: { reasoning: reasoning.parabola, agent: agent.parabola },
      curvatureErrorBound: { reasoning: bound('reasoning'), agent: bound('agent') },
    };
  }

  private splitCoefficients(inputs: DirectionInputs): void {
    this.curvature.directions.forEach((d, b) => {
      let constant = 0;
      let perAlpha = 0;
      if (d.coefficient === 'think-rows') constant = inputs.thinkRows;
      else if (d.coefficient === 'lm-head-scale') constant = inputs.lmHeadScale;
      else if (d.group === 'final_norm') perAlpha = inputs.finalNormScale;
      else {
        const block = this.coarseIndex[b] as number;
        const fine = this.fineIndex[b] as number;
        // A block the coefficients never saw has no S of its own: the gate treats it as unscored (S = 1).
        perAlpha = block >= 0 ? (inputs.coarseScale[block] as number) : fine >= 0 ? (inputs.fineScale[fine] as number) : 1;
      }
      this.constant[b] = constant;
      this.perAlpha[b] = perAlpha;
      this.current[b] = constant + inputs.alpha * perAlpha;
    });
  }

  /** One loss's first-order line and curvature parabola along α; each group's terms at α added into byGroup. */
  private lossTerms(loss: keyof LossTerms, alpha: number, byGroup: Map<EditGroup, GroupTerms>): { line: [number, number]; parabola: [number, number, number] } {
    const { directions } = this.curvature;
    const g = this.curvature.firstOrder[loss];
    const size = directions.length;
    // Two mat-vecs: (Mc)_b at α is their combination, c being c_const + α·c_α.
    this.operators[loss].apply(this.constant, this.perAlpha, this.mConstant, this.mPerAlpha);
    let f0 = 0, f1 = 0, q0 = 0, q1 = 0, q2 = 0;
    for (let b = 0; b < size; b++) {
      const mConstant = this.mConstant[b] as number;
      const mPerAlpha = this.mPerAlpha[b] as number;
      const mCurrent = mConstant + alpha * mPerAlpha;
      const constant = this.constant[b] as number;
      const perAlpha = this.perAlpha[b] as number;
      const current = this.current[b] as number;
      q0 += 0.5 * constant * mConstant;
      q1 += perAlpha * mConstant; // ½(c_constᵀ M c_α + c_αᵀ M c_const), M symmetric
      q2 += 0.5 * perAlpha * mPerAlpha;
      const group = byGroup.get((directions[b] as EditDirection).group) as GroupTerms;
      group.secondOrder[loss] += 0.5 * current * mCurrent;
      // Layer blocks' first order comes from the preview entries; only the rest is added here.
      if ((this.coarseIndex[b] as number) >= 0 || (this.fineIndex[b] as number) >= 0) continue;
      const gb = g[b] as number;
      group.firstOrder[loss] += current * gb;
      f0 += constant * gb;
      f1 += perAlpha * gb;
    }
    return { line: [f0, f1], parabola: [q0, q1, q2] };
  }
}
