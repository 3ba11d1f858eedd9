/**
 * The instant preview of an edit: what α, τ, k, the stage toggles, the granularity, per-block
 * overrides and the special-tensor strengths do to both calibration losses, without touching a
 * weight.
 *
 *   const preview = new InstantPreview(coefficients, gateTable, curvature?);   // once per analysis
 *   preview.evaluate(settings, curveAlphas?) → PreviewResult                    // every settings change
 *
 * A positive ΔL means the loss goes UP. Layer tensors, first order: per entry (a fine block and
 * its projector, see preview-coefficients.ts), with U = T(δ) or raw δ by the toggle:
 *   ΔL_K = Σ_entries α·S·(g_K·U − [GSP] Σ_i w_i (g_K V_i)·(U V_i))
 * which is exactly g_K·craneDelta(...) for the crane-rule layer tensors (float rounding aside).
 * With the analysis' curvature (preview-quadratic.ts) the embedding think rows, lm_head and the
 * final norm add their first-order terms and every direction its share of ½ cᵀMc, and on MoE
 * models the routers their SLERP's first order (preview-router.ts; no curvature term). Along α
 * the total is a parabola plus the routers' term, so the curve is three numbers per loss and the
 * routers' products. `breakdown` splits the total by tensor group: its terms sum to it.
 * The curvature was measured along the directions at the analysis' q/τ/k/toggles: at others
 * the second-order terms are `stale` (named in `curvature.staleReasons`), the rest exact.
 * `range` compares the model with the losses measured at analysis time (preview-range.ts).
 *
 * Per block, at the settings' granularity:
 *   effectiveScale  = coordinate-weighted mean of α·S over the block (α·S itself whenever the
 *                     block has one S, i.e. unless fine overrides split a coarse block)
 *   retainedFraction = ‖Π(U)‖² / ‖U‖² summed over the block's tensors, before scaling (S cancels
 *                     within a fine block); 1 where U = 0 or GSP is off.
 *
 * Speed: the layer tensors' part is cached per kind of change (preview-layers.ts) and the
 * curvature's per group as polynomials in α (preview-quadratic.ts), so an α move costs O(blocks);
 * the routers' curve is kept per routerAlphaFraction. A call allocates only its result.
 */
import type { EditGroup } from '../crane/edit-directions.ts';
import { resolveScale, type GateTable } from '../crane/gate-scales.ts';
import type { CraneDeltaSettings } from '../crane/crane-edit.ts';
import type { SpecialTensorSettings } from '../protocol/settings-schemas.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import type { PreviewCoefficients } from './preview-coefficients.ts';
import type { PreviewCurvature } from './preview-curvature.ts';
import { LayerTerms, type LayerResult } from './preview-layers.ts';
import { QuadraticTerms, type LossTerms, type QuadraticResult } from './preview-quadratic.ts';
import { curvatureStaleReasons, previewRange, type PreviewRange } from './preview-range.ts';
import { RouterCurve, type RouterValues } from './preview-router.ts';

export type PreviewSettings = CraneDeltaSettings & { readonly special: Pick<SpecialTensorSettings, 'thinkRows' | 'lmHeadScale' | 'routerAlphaFraction'> };

/** The breakdown's tensor groups: the edit's directions and the routers. */
export type PreviewGroup = EditGroup | 'router';

/** One tensor group's share of the total: first-order and curvature terms per loss. */
export interface PreviewTerm {
  readonly group: PreviewGroup;
  readonly firstOrder: LossTerms;
  readonly secondOrder: LossTerms;
}

export interface PreviewCurve {
  readonly alphas: Float64Array;
  readonly deltaLossReasoning: Float64Array;
  readonly deltaLossAgent: Float64Array;
  /** The first-order part alone (every term but the curvature). */
  readonly firstOrderReasoning: Float64Array;
  readonly firstOrderAgent: Float64Array;
}

export interface PreviewResult {
  /** The total: every group's first- and second-order terms. */
  readonly deltaLossReasoning: number;
  readonly deltaLossAgent: number;
  readonly firstOrder: LossTerms;
  /** Per tensor group, in a fixed order; sums to the total. */
  readonly breakdown: readonly PreviewTerm[];
  /** Block keys at the settings' granularity (the same array on every call). */
  readonly blocks: readonly string[];
  readonly effectiveScale: Float64Array;
  readonly retainedFraction: Float64Array;
  readonly curve: PreviewCurve;
  /** absent: the analysis has no curvature (first order over the layer tensors only). */
  readonly curvature: { readonly state: 'absent' } | { readonly state: 'current' | 'stale'; readonly staleReasons: readonly string[] };
  /** Where the model agrees with the losses measured at analysis time; null without them. */
  readonly range: PreviewRange | null;
}

/** The breakdown's order: layer groups as the heatmap lists them, then the tensors outside the layers. */
const GROUP_ORDER: readonly PreviewGroup[] = ['attention', 'linear_attn', 'ffn', 'expert', 'shared_expert', 'router', 'norm', 'other', 'final_norm', 'embed_think', 'lm_head_think', 'lm_head_blend'];
const FINAL_NORM = classifyTensor('model.norm.weight');

export const DEFAULT_CURVE_ALPHAS = Float64Array.from({ length: 21 }, (_, i) => i / 20);

export class InstantPreview {
  readonly fineBlocks: readonly string[];
  readonly coarseBlocks: readonly string[];
  private readonly layers: LayerTerms;
  private readonly layerGroups: ReadonlySet<PreviewGroup>;
  private readonly quadratic: QuadraticTerms | null;
  private readonly routerCurve: RouterCurve | null;
  private anchors: PreviewRange | null | undefined;

  constructor(private readonly coefficients: PreviewCoefficients, private readonly gate: GateTable | null, private readonly curvature?: PreviewCurvature) {
    this.layers = new LayerTerms(coefficients, gate, groupIndex, GROUP_ORDER.length);
    this.layerGroups = new Set(coefficients.entries.map((e) => e.group));
    this.fineBlocks = this.layers.fineBlocks;
    this.coarseBlocks = this.layers.coarseBlocks;
    this.quadratic = curvature === undefined ? null : new QuadraticTerms(curvature, this.coarseBlocks, this.fineBlocks);
    this.routerCurve = (curvature?.routers ?? []).length === 0 ? null : new RouterCurve(curvature?.routers ?? []);
  }

  evaluate(settings: PreviewSettings, curveAlphas: Float64Array = DEFAULT_CURVE_ALPHAS): PreviewResult {
    const result = this.compute(settings, curveAlphas);
    return { ...result, range: this.anchorRange() };
  }

  private compute(settings: PreviewSettings, curveAlphas: Float64Array): Omit<PreviewResult, 'range'> {
    const { stages, alpha } = settings;
    if (stages.threshold && settings.keepQuantile !== this.coefficients.keepQuantile) {
      throw new RangeError(`preview coefficients were computed at keep-quantile ${this.coefficients.keepQuantile}; q = ${settings.keepQuantile} needs them recomputed`);
    }
    const layers = this.layers.evaluate(settings);
    const quadratic = this.quadratic?.evaluate(this.directionInputs(settings, layers)) ?? null;
    const staleReasons = this.curvature === undefined ? [] : curvatureStaleReasons(this.curvature.basis, settings);
    const routers = this.routerCurve?.at(settings.special.routerAlphaFraction, curveAlphas) ?? null;
    return {
      ...assemble(alpha, layers.groupSlope, this.layerGroups, quadratic, routers, curveAlphas),
      blocks: settings.granularity === 'fine' ? this.fineBlocks : this.coarseBlocks,
      effectiveScale: layers.effectiveScale,
      retainedFraction: layers.retainedFraction,
      curvature: this.curvature === undefined ? { state: 'absent' } : { state: staleReasons.length > 0 ? 'stale' : 'current', staleReasons },
    };
  }

  /** The measured anchors next to the model at their settings: computed once, on first use. */
  private anchorRange(): PreviewRange | null {
    if (this.anchors !== undefined) return this.anchors;
    const curvature = this.curvature;
    if (curvature === undefined || curvature.anchors.length === 0) return (this.anchors = null);
    const { basis } = curvature;
    const at = (alpha: number): PreviewSettings => ({
      alpha, keepQuantile: basis.keepQuantile, tau: basis.tau, steepness: basis.steepness,
      stages: { threshold: basis.threshold, gate: true, gsp: basis.gsp }, granularity: 'coarse', overrideScales: {}, arith: 'f32', special: curvature.anchorSpecial,
    });
    const alphas = Float64Array.of(0);
    this.anchors = previewRange(curvature.anchors, curvature.split, (alpha) => {
      const r = this.compute(at(alpha), alphas);
      return { predicted: { reasoning: r.deltaLossReasoning, agent: r.deltaLossAgent }, firstOrder: r.firstOrder };
    });
    return this.anchors;
  }

  /** Each direction's coefficient inputs: S per coarse block as the coordinate-weighted mean of its slots' S. */
  private directionInputs(settings: PreviewSettings, layers: LayerResult) {
    const finalNormScale = resolveScale(FINAL_NORM, settings.stages.gate ? this.gate : null, settings).value;
    return { coarseScale: layers.coarseScale, fineScale: layers.fineScale, finalNormScale, alpha: settings.alpha, thinkRows: settings.special.thinkRows, lmHeadScale: settings.special.lmHeadScale };
  }
}

function groupIndex(group: string): number {
  const index = GROUP_ORDER.indexOf(group as PreviewGroup);
  if (index < 0) throw new RangeError(`preview entry of group ${group}: only crane-rule layer groups have coefficients`);
  return index;
}

/**
 * Totals, breakdown and curve from the layer entries' per-group slopes (ΔL = α·slope), the
 * quadratic terms and the routers' term r(α). Along α: total = f0 + f1·α + q0 + q1·α + q2·α² + r(α),
 * first order = f0 + f1·α + r(α).
 */
function assemble(
  alpha: number,
  groupSlope: Float64Array,
  layerGroups: ReadonlySet<PreviewGroup>,
  quadratic: QuadraticResult | null,
  routers: RouterValues | null,
  alphas: Float64Array,
): Pick<PreviewResult, 'deltaLossReasoning' | 'deltaLossAgent' | 'firstOrder' | 'breakdown' | 'curve'> {
  const breakdown: PreviewTerm[] = [];
  const routerTerm = routers?.at(alpha);
  GROUP_ORDER.forEach((group, g) => {
    if (group === 'router') {
      if (routerTerm !== undefined) breakdown.push({ group, firstOrder: routerTerm, secondOrder: { reasoning: 0, agent: 0 } });
      return;
    }
    const layerR = alpha * (groupSlope[2 * g] as number);
    const layerA = alpha * (groupSlope[2 * g + 1] as number);
    const extra = quadratic?.byGroup.get(group);
    if (extra === undefined && !layerGroups.has(group)) return;
    breakdown.push({
      group,
      firstOrder: { reasoning: layerR + (extra?.firstOrder.reasoning ?? 0), agent: layerA + (extra?.firstOrder.agent ?? 0) },
      secondOrder: { reasoning: extra?.secondOrder.reasoning ?? 0, agent: extra?.secondOrder.agent ?? 0 },
    });
  });
  const line = (loss: 0 | 1) => {
    const key = loss === 0 ? 'reasoning' : 'agent';
    let slope = 0;
    for (let g = loss; g < groupSlope.length; g += 2) slope += groupSlope[g] as number;
    const [f0, f1] = quadratic?.firstOrderLine[key] ?? [0, 0];
    const [q0, q1, q2] = quadratic?.curvature[key] ?? [0, 0, 0];
    const first = (a: number, router: number) => f0 + (f1 + slope) * a + router;
    const total = (a: number, router: number) => f0 + q0 + (f1 + slope + q1) * a + q2 * a * a + router;
    const curveRouter = routers?.curve[key];
    const atCurve = (f: typeof first) => alphas.map((a, i) => f(a, curveRouter?.[i] ?? 0));
    const here = routerTerm?.[key] ?? 0;
    return { first: first(alpha, here), total: total(alpha, here), curveFirst: atCurve(first), curveTotal: atCurve(total) };
  };
  const [r, a] = [line(0), line(1)];
  return {
    deltaLossReasoning: r.total,
    deltaLossAgent: a.total,
    firstOrder: { reasoning: r.first, agent: a.first },
    breakdown,
    curve: { alphas, deltaLossReasoning: r.curveTotal, deltaLossAgent: a.curveTotal, firstOrderReasoning: r.curveFirst, firstOrderAgent: a.curveFirst },
  };
}
