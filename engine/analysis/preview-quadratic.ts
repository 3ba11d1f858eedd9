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
 * M enters through curvature-operator.ts' per-group forms (B² dense, 2·B·k low-rank, per loss).
 *
 * Speed: every group's terms are polynomials in α (first order a line, curvature a parabola),
 * computed when c_const or c_α change and kept; a call where only α moved evaluates them: O(B)
 * to see that nothing else moved, O(groups) to answer.
 */
import type { EditGroup } from '../crane/edit-directions.ts';
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

const LOSSES = ['reasoning', 'agent'] as const;
/** Per group and loss: first order a0 + a1·α, then the curvature's share A + B·α + C·α² (halved). */
const TERMS = 5;

export class QuadraticTerms {
  private readonly groups: readonly EditGroup[];
  private readonly groupOf: Int32Array;
  private readonly directionScale: readonly DirectionScale[];
  private readonly layerDirection: Uint8Array;
  private readonly constant: Float64Array;
  private readonly perAlpha: Float64Array;
  private readonly current: Float64Array;
  private readonly operators: Readonly<Record<keyof LossTerms, CurvatureOperator>>;
  private readonly forms: Float64Array;
  /** groups × losses × TERMS; valid while `constant` and `perAlpha` are what they were computed at. */
  private readonly polynomials: Float64Array;
  private fresh = false;

  constructor(private readonly curvature: PreviewCurvature, coarseBlocks: readonly string[], fineBlocks: readonly string[]) {
    const coarse = new Map(coarseBlocks.map((key, i) => [key, i]));
    const fine = new Map(fineBlocks.map((key, i) => [key, i]));
    this.groups = [...new Set(curvature.directions.map((d) => d.group))];
    this.groupOf = Int32Array.from(curvature.directions, (d) => this.groups.indexOf(d.group));
    this.directionScale = curvature.directions.map((d): DirectionScale => {
      if (d.coefficient === 'think-rows') return { kind: 'think-rows' };
      if (d.coefficient === 'lm-head-scale') return { kind: 'lm-head-scale' };
      if (d.group === 'final_norm') return { kind: 'final-norm' };
      const block = coarse.get(d.key);
      if (block !== undefined) return { kind: 'coarse', index: block };
      const index = fine.get(d.key);
      // A block the coefficients never saw has no S of its own: the gate treats it as unscored (S = 1).
      return index === undefined ? { kind: 'unscored' } : { kind: 'fine', index };
    });
    // Layer blocks' first order comes from the preview entries; only the rest is added here.
    this.layerDirection = Uint8Array.from(this.directionScale, (d) => (d.kind === 'coarse' || d.kind === 'fine' ? 1 : 0));
    const size = curvature.directions.length;
    this.constant = new Float64Array(size);
    this.perAlpha = new Float64Array(size);
    this.current = new Float64Array(size);
    this.forms = new Float64Array(3 * this.groups.length);
    this.polynomials = new Float64Array(this.groups.length * LOSSES.length * TERMS);
    this.operators = { reasoning: curvatureOperator(curvatureMatrix(curvature, 'reasoning'), size), agent: curvatureOperator(curvatureMatrix(curvature, 'agent'), size) };
  }

  evaluate(inputs: DirectionInputs): QuadraticResult {
    const { alpha } = inputs;
    if (this.splitCoefficients(inputs) || !this.fresh) this.refreshPolynomials();
    const byGroup = new Map<EditGroup, GroupTerms>();
    const line = { reasoning: [0, 0] as [number, number], agent: [0, 0] as [number, number] };
    const parabola = { reasoning: [0, 0, 0] as [number, number, number], agent: [0, 0, 0] as [number, number, number] };
    this.groups.forEach((group, g) => {
      const terms: GroupTerms = { firstOrder: { reasoning: 0, agent: 0 }, secondOrder: { reasoning: 0, agent: 0 } };
      LOSSES.forEach((loss, l) => {
        const at = (g * LOSSES.length + l) * TERMS;
        const p = this.polynomials;
        const [a0, a1, q0, q1, q2] = [p[at] as number, p[at + 1] as number, p[at + 2] as number, p[at + 3] as number, p[at + 4] as number];
        terms.firstOrder[loss] = a0 + alpha * a1;
        terms.secondOrder[loss] = q0 + alpha * q1 + alpha * alpha * q2;
        line[loss][0] += a0;
        line[loss][1] += a1;
        parabola[loss][0] += q0;
        parabola[loss][1] += q1;
        parabola[loss][2] += q2;
      });
      byGroup.set(group, terms);
    });
    for (let b = 0; b < this.current.length; b++) this.current[b] = (this.constant[b] as number) + alpha * (this.perAlpha[b] as number);
    const bound = (loss: keyof LossTerms) => 0.5 * this.operators[loss].errorBound(this.current);
    return { byGroup, firstOrderLine: line, curvature: parabola, curvatureErrorBound: { reasoning: bound('reasoning'), agent: bound('agent') } };
  }

  /** c_const and c_α of every direction at the settings; true when any of them moved. */
  private splitCoefficients(inputs: DirectionInputs): boolean {
    let moved = false;
    this.directionScale.forEach((d, b) => {
      let constant = 0;
      let perAlpha = 0;
      switch (d.kind) {
        case 'think-rows': constant = inputs.thinkRows; break;
        case 'lm-head-scale': constant = inputs.lmHeadScale; break;
        case 'final-norm': perAlpha = inputs.finalNormScale; break;
        case 'coarse': perAlpha = inputs.coarseScale[d.index] as number; break;
        case 'fine': perAlpha = inputs.fineScale[d.index] as number; break;
        case 'unscored': perAlpha = 1; break;
      }
      if (constant !== this.constant[b] || perAlpha !== this.perAlpha[b]) moved = true;
      this.constant[b] = constant;
      this.perAlpha[b] = perAlpha;
    });
    return moved;
  }

  /** Every group's polynomials in α from c_const and c_α: the per-group forms of M and g·c. */
  private refreshPolynomials(): void {
    this.polynomials.fill(0);
    LOSSES.forEach((loss, l) => {
      this.operators[loss].groupForms(this.constant, this.perAlpha, this.groupOf, this.groups.length, this.forms);
      const g = this.curvature.firstOrder[loss];
      for (let b = 0; b < this.groupOf.length; b++) {
        if (this.layerDirection[b] === 1) continue;
        const at = ((this.groupOf[b] as number) * LOSSES.length + l) * TERMS;
        const gb = g[b] as number;
        this.polynomials[at] = (this.polynomials[at] as number) + (this.constant[b] as number) * gb;
        this.polynomials[at + 1] = (this.polynomials[at + 1] as number) + (this.perAlpha[b] as number) * gb;
      }
      for (let group = 0; group < this.groups.length; group++) {
        const at = (group * LOSSES.length + l) * TERMS;
        for (let i = 0; i < 3; i++) this.polynomials[at + 2 + i] = 0.5 * (this.forms[3 * group + i] as number);
      }
    });
    this.fresh = true;
  }
}

/** Where a direction's coefficient comes from (resolved once: no string keys per call). */
type DirectionScale =
  | { readonly kind: 'think-rows' | 'lm-head-scale' | 'final-norm' | 'unscored' }
  | { readonly kind: 'coarse' | 'fine'; readonly index: number };
