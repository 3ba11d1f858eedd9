/**
 * The instant first-order preview of an edit: what α, τ, k, the stage toggles, the granularity
 * and per-block overrides do to both calibration losses, without touching a weight.
 *
 *   const preview = new InstantPreview(coefficients, gateTable);   // once per analysis
 *   preview.evaluate(settings, curveAlphas?) → PreviewResult         // every settings change
 *
 * First order: ΔL_K ≈ g_K·Δθ, so a positive value means the loss goes UP. Per entry (a fine
 * block and its projector, see preview-coefficients.ts), with U = T(δ) or raw δ by the toggle:
 *   ΔL_K = Σ_entries α·S·(g_K·U − [GSP] Σ_i w_i (g_K V_i)·(U V_i))
 * which is exactly g_K·craneDelta(...) for the crane-rule layer tensors (float rounding aside).
 * Not covered: embeddings, lm_head and the final norm (no gradients: only layer parameters are
 * scored) and routers (SLERP is not α·S·T(δ)). ΔL is linear in α, so the curve is α·slope.
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
import { blockKey } from '../crane/gate-accumulator.ts';
import { overrideKeys, resolveScale, type GateTable } from '../crane/gate-scales.ts';
import type { CraneDeltaSettings } from '../crane/crane-edit.ts';
import { blockScale } from '../protocol/block-scale.ts';
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import type { Granularity } from '../protocol/settings-schemas.ts';
import type { TensorClass } from '../crane/tensor-classification.ts';
import type { PreviewCoefficients } from './preview-coefficients.ts';
import { GRAD_A, GRAD_R, MOMENTS, NORM, RAW, THRESHOLDED } from './tensor-moments.ts';

export type PreviewSettings = CraneDeltaSettings;

export interface PreviewResult {
  readonly deltaLossReasoning: number;
  readonly deltaLossAgent: number;
  /** Block keys at the settings' granularity (the same array on every call). */
  readonly blocks: readonly string[];
  readonly effectiveScale: Float64Array;
  readonly retainedFraction: Float64Array;
  readonly curve: { readonly alphas: Float64Array; readonly deltaLossReasoning: Float64Array; readonly deltaLossAgent: Float64Array };
}

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
  private maskTau = Number.NaN;
  private maskSteepness = Number.NaN;

  constructor(private readonly coefficients: PreviewCoefficients, gate: GateTable | null) {
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
  }

  evaluate(settings: PreviewSettings, curveAlphas: Float64Array = DEFAULT_CURVE_ALPHAS): PreviewResult {
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
    const { scalars } = this.coefficients;
    const kind = stages.threshold ? THRESHOLDED : RAW;
    // Unprojected entries have zero corrections, so one expression serves both cases.
    const removed = stages.gsp ? this.corrections : this.noCorrections;
    let slopeR = 0;
    let slopeA = 0;
    for (let e = 0; e < this.entrySlot.length; e++) {
      const slot = this.entrySlot[e] as number;
      const block = fine ? slot : (this.slotCoarse[slot] as number);
      const s = this.slotScale[slot] as number;
      const at = e * MOMENTS + kind;
      slopeR += s * ((scalars[at + GRAD_R] as number) - (removed[at + GRAD_R] as number));
      slopeA += s * ((scalars[at + GRAD_A] as number) - (removed[at + GRAD_A] as number));
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
    return {
      deltaLossReasoning: alpha * slopeR,
      deltaLossAgent: alpha * slopeA,
      blocks,
      effectiveScale,
      retainedFraction,
      curve: { alphas: curveAlphas, deltaLossReasoning: curveAlphas.map((a) => a * slopeR), deltaLossAgent: curveAlphas.map((a) => a * slopeA) },
    };
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
