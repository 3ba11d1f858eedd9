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
 * Speed: everything keyed by strings is resolved at construction (slots, S of the gate per
 * granularity, the override keys resolveScale would consult). A call allocates only its
 * result; a τ or k change also recomputes the masks (sigmoidWeights) and the Σ w·d per entry.
 */
import type { EditGroup } from '../crane/edit-directions.ts';
import { blockKey } from '../crane/gate-accumulator.ts';
import { overrideKeys, resolveScale, type GateTable } from '../crane/gate-scales.ts';
import type { CraneDeltaSettings } from '../crane/crane-edit.ts';
import { blockScale } from '../protocol/block-scale.ts';
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import type { Granularity, SpecialTensorSettings } from '../protocol/settings-schemas.ts';
import { classifyTensor, type TensorClass } from '../crane/tensor-classification.ts';
import type { PreviewCoefficients } from './preview-coefficients.ts';
import type { PreviewCurvature } from './preview-curvature.ts';
import { QuadraticTerms, type DirectionInputs, type LossTerms, type QuadraticResult } from './preview-quadratic.ts';
import { curvatureStaleReasons, previewRange, type PreviewRange } from './preview-range.ts';
import { routerFirstOrder, type RouterTerm } from './preview-router.ts';
import { GRAD_A, GRAD_R, MOMENTS, NORM, RAW, THRESHOLDED } from './tensor-moments.ts';

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
  private readonly slotCoarse: Int32Array;
  private readonly gateScale: Readonly<Record<Granularity, Float64Array>>;
  private readonly overrideKeys: readonly (readonly string[])[];
  private readonly entrySlot: Int32Array;
  private readonly entryProjector: Int32Array;
  private readonly entryCoordinates: Float64Array;
  private readonly spectra: readonly Float64Array[];
  private readonly corrections: Float64Array;
  private readonly noCorrections: Float64Array;
  private readonly slotScale: Float64Array;
  private readonly blockCoordinates: Float64Array;
  private readonly blockNorm: Float64Array;
  private readonly entryGroup: Int32Array;
  private readonly groupSlope: Float64Array;
  private readonly layerGroups: ReadonlySet<PreviewGroup>;
  private readonly slotCoordinates: Float64Array;
  private readonly coarseScale: Float64Array;
  private readonly coarseCoordinates: Float64Array;
  private readonly quadratic: QuadraticTerms | null;
  private anchors: PreviewRange | null | undefined;
  private maskTau = Number.NaN;
  private maskSteepness = Number.NaN;

  constructor(private readonly coefficients: PreviewCoefficients, private readonly gate: GateTable | null, private readonly curvature?: PreviewCurvature) {
    const slots = new Map<string, number>();
    const coarse = new Map<string, number>();
    const slotClasses: TensorClass[] = [];
    const slotCoarse: number[] = [];
    const projectorKeys = [...coefficients.spectra.keys()];
    this.entrySlot = Int32Array.from(coefficients.entries, ({ group, block, layer }) => {
      const fine = blockKey({ group, block, layer });
      let slot = slots.get(fine);
      if (slot === undefined) {
        slot = slotClasses.length;
        slots.set(fine, slot);
        // resolveScale reads only group, block and layer: one class stands for the whole slot.
        slotClasses.push({ name: fine, layer, group, block, expert: null, gspKey: null, rule: 'crane' });
        const coarseKey = blockKey({ group, block: null, layer });
        if (!coarse.has(coarseKey)) coarse.set(coarseKey, coarse.size);
        slotCoarse.push(coarse.get(coarseKey) as number);
      }
      return slot;
    });
    this.entryProjector = Int32Array.from(coefficients.entries, (e) => (e.projector === null ? -1 : projectorKeys.indexOf(e.projector)));
    if (this.entryProjector.some((p, e) => p < 0 && coefficients.entries[e]?.projector !== null)) throw new RangeError('an entry names a projector without a spectrum');
    this.entryGroup = Int32Array.from(coefficients.entries, (e) => groupIndex(e.group));
    this.layerGroups = new Set(Array.from(this.entryGroup, (g) => GROUP_ORDER[g] as PreviewGroup));
    this.fineBlocks = [...slots.keys()];
    this.coarseBlocks = [...coarse.keys()];
    this.slotCoarse = Int32Array.from(slotCoarse);
    const scaleAll = (granularity: Granularity) => Float64Array.from(slotClasses, (c) => resolveScale(c, gate, { granularity, overrideScales: {} }).value);
    this.gateScale = { coarse: scaleAll('coarse'), fine: scaleAll('fine') };
    this.overrideKeys = slotClasses.map(overrideKeys);
    this.spectra = projectorKeys.map((k) => coefficients.spectra.get(k) as Float64Array);
    this.entryCoordinates = Float64Array.from(coefficients.entries, (e) => e.coordinates);
    this.corrections = new Float64Array(coefficients.entries.length * MOMENTS);
    this.noCorrections = new Float64Array(coefficients.entries.length * MOMENTS);
    this.slotScale = new Float64Array(slotClasses.length);
    this.blockCoordinates = new Float64Array(slotClasses.length);
    this.blockNorm = new Float64Array(slotClasses.length);
    this.groupSlope = new Float64Array(GROUP_ORDER.length * 2);
    this.slotCoordinates = new Float64Array(slotClasses.length);
    this.entrySlot.forEach((slot, e) => { this.slotCoordinates[slot] = (this.slotCoordinates[slot] as number) + (this.entryCoordinates[e] as number); });
    this.coarseScale = new Float64Array(coarse.size);
    this.coarseCoordinates = new Float64Array(coarse.size);
    this.slotCoarse.forEach((c, slot) => { this.coarseCoordinates[c] = (this.coarseCoordinates[c] as number) + (this.slotCoordinates[slot] as number); });
    this.quadratic = curvature === undefined ? null : new QuadraticTerms(curvature, this.coarseBlocks, this.fineBlocks);
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
    if (stages.gsp) this.refreshMasks(settings.tau, settings.steepness);
    this.resolveSlotScales(settings);
    const fine = settings.granularity === 'fine';
    const blocks = fine ? this.fineBlocks : this.coarseBlocks;
    const effectiveScale = new Float64Array(blocks.length);
    const retainedFraction = new Float64Array(blocks.length);
    this.blockCoordinates.fill(0);
    this.blockNorm.fill(0);
    this.groupSlope.fill(0);
    const { scalars } = this.coefficients;
    const kind = stages.threshold ? THRESHOLDED : RAW;
    // Unprojected entries have zero corrections, so one expression serves both cases.
    const removed = stages.gsp ? this.corrections : this.noCorrections;
    for (let e = 0; e < this.entrySlot.length; e++) {
      const slot = this.entrySlot[e] as number;
      const block = fine ? slot : (this.slotCoarse[slot] as number);
      const s = this.slotScale[slot] as number;
      const at = e * MOMENTS + kind;
      const group = 2 * (this.entryGroup[e] as number);
      this.groupSlope[group] = (this.groupSlope[group] as number) + s * ((scalars[at + GRAD_R] as number) - (removed[at + GRAD_R] as number));
      this.groupSlope[group + 1] = (this.groupSlope[group + 1] as number) + s * ((scalars[at + GRAD_A] as number) - (removed[at + GRAD_A] as number));
      const norm = scalars[at + NORM] as number;
      const coordinates = this.entryCoordinates[e] as number;
      effectiveScale[block] = (effectiveScale[block] as number) + alpha * s * coordinates;
      this.blockCoordinates[block] = (this.blockCoordinates[block] as number) + coordinates;
      retainedFraction[block] = (retainedFraction[block] as number) + norm - (removed[at + NORM] as number);
      this.blockNorm[block] = (this.blockNorm[block] as number) + norm;
    }
    for (let b = 0; b < blocks.length; b++) {
      const coordinates = this.blockCoordinates[b] as number;
      const norm = this.blockNorm[b] as number;
      effectiveScale[b] = coordinates > 0 ? (effectiveScale[b] as number) / coordinates : 0;
      retainedFraction[b] = norm > 0 ? (retainedFraction[b] as number) / norm : 1;
    }
    const quadratic = this.quadratic?.evaluate(this.directionInputs(settings)) ?? null;
    const staleReasons = this.curvature === undefined ? [] : curvatureStaleReasons(this.curvature.basis, settings);
    const routers = this.routers(settings.special.routerAlphaFraction);
    return {
      ...assemble(alpha, this.groupSlope, this.layerGroups, quadratic, routers, curveAlphas),
      blocks,
      effectiveScale,
      retainedFraction,
      curvature: this.curvature === undefined ? { state: 'absent' } : { state: staleReasons.length > 0 ? 'stale' : 'current', staleReasons },
    };
  }

  /** The routers' first order at α (null on a model without routers or without curvature). */
  private routers(fraction: number): ((alpha: number) => LossTerms) | null {
    const routers: readonly RouterTerm[] = this.curvature?.routers ?? [];
    return routers.length === 0 ? null : (alpha) => routerFirstOrder(routers, alpha * fraction);
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
  private directionInputs(settings: PreviewSettings): DirectionInputs {
    this.coarseScale.fill(0);
    this.slotCoarse.forEach((c, slot) => { this.coarseScale[c] = (this.coarseScale[c] as number) + (this.slotScale[slot] as number) * (this.slotCoordinates[slot] as number); });
    this.coarseScale.forEach((sum, c) => { const n = this.coarseCoordinates[c] as number; this.coarseScale[c] = n > 0 ? sum / n : 0; });
    const finalNormScale = resolveScale(FINAL_NORM, settings.stages.gate ? this.gate : null, settings).value;
    return { coarseScale: this.coarseScale, fineScale: this.slotScale, finalNormScale, alpha: settings.alpha, thinkRows: settings.special.thinkRows, lmHeadScale: settings.special.lmHeadScale };
  }

  /** S per slot by the one rule (protocol/block-scale.ts), overrides looked up in resolveScale's order. */
  private resolveSlotScales(settings: PreviewSettings): void {
    const gateScale = this.gateScale[settings.granularity];
    const overrides = settings.overrideScales;
    for (let slot = 0; slot < this.slotScale.length; slot++) {
      const key = (this.overrideKeys[slot] as readonly string[]).find((k) => Object.hasOwn(overrides, k));
      this.slotScale[slot] = blockScale(settings.stages.gate, gateScale[slot], key === undefined ? undefined : overrides[key]);
    }
  }

  /** Σ_i w_i·d_i for the gradient moments and Σ_i (2w_i − w_i²)·‖UV_i‖² for the norm, per entry. */
  private refreshMasks(tau: number, steepness: number): void {
    if (tau === this.maskTau && steepness === this.maskSteepness) return;
    const weights = this.spectra.map((ratios) => sigmoidWeights(ratios, tau, steepness));
    const { entries, directions: d } = this.coefficients;
    for (let e = 0; e < entries.length; e++) {
      const p = this.entryProjector[e] as number;
      if (p < 0) continue; // stays 0: nothing is removed from an unprojected entry
      const { directionOffset, rank } = entries[e] as { directionOffset: number; rank: number };
      const w = weights[p] as Float64Array;
      // Six local sums, unrolled in the MOMENTS layout: this loop is the whole cost of a τ/k change.
      let tR = 0, tA = 0, tN = 0, rR = 0, rA = 0, rN = 0;
      for (let i = 0, at = directionOffset * MOMENTS; i < rank; i++, at += MOMENTS) {
        const wi = w[i] as number;
        const normWeight = 2 * wi - wi * wi;
        tR += wi * (d[at + THRESHOLDED + GRAD_R] as number);
        tA += wi * (d[at + THRESHOLDED + GRAD_A] as number);
        tN += normWeight * (d[at + THRESHOLDED + NORM] as number);
        rR += wi * (d[at + RAW + GRAD_R] as number);
        rA += wi * (d[at + RAW + GRAD_A] as number);
        rN += normWeight * (d[at + RAW + NORM] as number);
      }
      const out = e * MOMENTS;
      this.corrections[out + THRESHOLDED + GRAD_R] = tR;
      this.corrections[out + THRESHOLDED + GRAD_A] = tA;
      this.corrections[out + THRESHOLDED + NORM] = tN;
      this.corrections[out + RAW + GRAD_R] = rR;
      this.corrections[out + RAW + GRAD_A] = rA;
      this.corrections[out + RAW + NORM] = rN;
    }
    this.maskTau = tau;
    this.maskSteepness = steepness;
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
  routers: ((alpha: number) => LossTerms) | null,
  alphas: Float64Array,
): Pick<PreviewResult, 'deltaLossReasoning' | 'deltaLossAgent' | 'firstOrder' | 'breakdown' | 'curve'> {
  const breakdown: PreviewTerm[] = [];
  const routerTerm = routers?.(alpha);
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
    const router = (a: number) => (a === alpha ? routerTerm?.[key] : routers?.(a)[key]) ?? 0;
    return { first: (a: number) => f0 + (f1 + slope) * a + router(a), total: (a: number) => f0 + q0 + (f1 + slope + q1) * a + q2 * a * a + router(a) };
  };
  const [r, a] = [line(0), line(1)];
  return {
    deltaLossReasoning: r.total(alpha),
    deltaLossAgent: a.total(alpha),
    firstOrder: { reasoning: r.first(alpha), agent: a.first(alpha) },
    breakdown,
    curve: { alphas, deltaLossReasoning: alphas.map(r.total), deltaLossAgent: alphas.map(a.total), firstOrderReasoning: alphas.map(r.first), firstOrderAgent: alphas.map(a.first) },
  };
}
