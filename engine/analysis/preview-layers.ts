/**
 * The layer tensors' first order for the instant preview (preview.ts), from the analysis'
 * coefficients (preview-coefficients.ts): per tensor group the slope of ΔL in α, and per block
 * the mean α·S and the retained update-norm fraction.
 *
 *   const layers = new LayerTerms(coefficients, gate, groupIndex, groupCount);  // once per analysis
 *   layers.evaluate(settings) → LayerResult                                     // every settings change
 *
 * With s_e the S of entry e's fine block, U its update (T(δ) or raw δ by the toggle) and w the
 * mask of its projector p at τ, k (d_{e,i} = (g V_i)·(U V_i), n_{e,i} = ‖U V_i‖²):
 *   slope_K(group) = Σ_e s_e·(g_K·U)_e − [GSP] Σ_{(group, p)} Σ_i w_{p,i}·G_{group,p,i},  G = Σ_{e∈(group,p)} s_e d_{e,i}
 *   retained(block) = (Σ_e ‖U‖²_e − [GSP] Σ_e Σ_i (2w_{p,i} − w_{p,i}²)·n_{e,i}) / Σ_e ‖U‖²_e   (preview-retained.ts)
 * Grouping by (group, projector) is what makes a τ/k drag cheap: every entry of a projector shares
 * its mask, so the slopes need the r-vectors G per pair, not one dot product per entry.
 *
 * Speed, per kind of change (everything keyed by strings is resolved at construction):
 *   α only          O(blocks): nothing but α·S moves.
 *   S (overrides, gate, granularity)
 *                   O(entries) for Σ s·(g·U); G = G_base + Σ over blocks whose S differs from the
 *                   gate's (s − s_base)·d, with G_base computed once per (update kind, gate state).
 *   τ or k          the masks, Σ_pairs w·G, and the retained fractions (preview-retained.ts).
 * The results equal the per-entry formulation to float rounding (preview-layers.test.ts).
 */
import { overrideKeys, resolveScale, type GateTable } from '../crane/gate-scales.ts';
import type { CraneDeltaSettings } from '../crane/crane-edit.ts';
import { blockKey } from '../crane/gate-accumulator.ts';
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import type { Granularity } from '../protocol/settings-schemas.ts';
import type { TensorClass } from '../crane/tensor-classification.ts';
import type { PreviewCoefficients } from './preview-coefficients.ts';
import { pairUp } from './preview-pairs.ts';
import { RetainedFractions, type UpdateKind } from './preview-retained.ts';
import { GRAD_A, GRAD_R, MOMENTS, RAW, THRESHOLDED } from './tensor-moments.ts';

export interface LayerResult {
  /** Per group index: [slope_R, slope_A] at 2g, 2g + 1 (ΔL = α·slope). Valid until the next call. */
  readonly groupSlope: Float64Array;
  /** S per fine block and its coordinate-weighted mean per coarse block. Valid until the next call. */
  readonly fineScale: Float64Array;
  readonly coarseScale: Float64Array;
  /** Per block at the settings' granularity (new arrays: the caller's to keep). */
  readonly effectiveScale: Float64Array;
  readonly retainedFraction: Float64Array;
}

/** The S every block has before overrides: the gate's per granularity, or 1 with the gate off. */
type GateState = Granularity | 'off';

/** Blocks of one granularity: which block each entry belongs to, and how many blocks. */
interface Partition {
  readonly entryBlock: Int32Array;
  readonly count: number;
}

export class LayerTerms {
  readonly fineBlocks: readonly string[];
  readonly coarseBlocks: readonly string[];
  private readonly entrySlot: Int32Array;
  private readonly entryGroup: Int32Array;
  private readonly entryProjector: Int32Array;
  private readonly entryCoordinates: Float64Array;
  private readonly partitions: Readonly<Record<Granularity, Partition>>;
  /** (group, projector) pairs of the projected entries, each with its own r-vector in G. */
  private readonly entryPair: Int32Array;
  private readonly pairGroup: Int32Array;
  private readonly pairProjector: Int32Array;
  private readonly pairOffset: Int32Array;
  private readonly retainedFractions: RetainedFractions;
  private readonly slotEntries: readonly Int32Array[];
  private readonly spectra: readonly Float64Array[];
  private readonly gateScale: Readonly<Record<GateState, Float64Array>>;
  private readonly overrideIndex: ReadonlyMap<string, { readonly slots: Int32Array; readonly positions: Int32Array }>;

  private readonly slotScale: Float64Array;
  private readonly nextScale: Float64Array;
  private readonly overrideWinner: Int32Array;
  private scaleVersion = 0;
  private readonly groupSlope: Float64Array;
  private readonly scalarSlope: Float64Array;
  private readonly removedSlope: Float64Array;
  private readonly meanScale: Readonly<Record<Granularity, Float64Array>>;
  private scalarsAt = '';
  private readonly weights: Float64Array[];
  private readonly normWeights: Float64Array[];
  private masksAt = '';
  private readonly baseG = new Map<string, Float64Array>();
  private readonly g: Float64Array;
  private gAt = '';
  private removedAt = '';
  private retained: Float64Array = new Float64Array(0);
  private retainedAt = '';

  constructor(private readonly coefficients: PreviewCoefficients, gate: GateTable | null, groupIndex: (group: string) => number, private readonly groupCount: number) {
    const { entries } = coefficients;
    const slots = new Map<string, number>();
    const coarse = new Map<string, number>();
    const slotClasses: TensorClass[] = [];
    const slotCoarse: number[] = [];
    const projectorKeys = [...coefficients.spectra.keys()];
    this.entrySlot = Int32Array.from(entries, ({ group, block, layer }) => {
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
    this.entryProjector = Int32Array.from(entries, (e) => (e.projector === null ? -1 : projectorKeys.indexOf(e.projector)));
    if (this.entryProjector.some((p, e) => p < 0 && entries[e]?.projector !== null)) throw new RangeError('an entry names a projector without a spectrum');
    this.entryGroup = Int32Array.from(entries, (e) => groupIndex(e.group));
    this.entryCoordinates = Float64Array.from(entries, (e) => e.coordinates);
    this.fineBlocks = [...slots.keys()];
    this.coarseBlocks = [...coarse.keys()];
    this.partitions = {
      fine: { entryBlock: this.entrySlot, count: slots.size },
      coarse: { entryBlock: Int32Array.from(this.entrySlot, (slot) => slotCoarse[slot] as number), count: coarse.size },
    };
    this.spectra = projectorKeys.map((k) => coefficients.spectra.get(k) as Float64Array);
    entries.forEach((e, i) => {
      const p = this.entryProjector[i] as number;
      if (p >= 0 && e.rank !== (this.spectra[p] as Float64Array).length) throw new RangeError(`preview entry ${e.group}.${e.block}@${e.layer}: ${e.rank} directions for a spectrum of ${(this.spectra[p] as Float64Array).length}`);
    });
    const rankOf = (p: number) => (this.spectra[p] as Float64Array).length;
    const pairs = pairUp(this.entryProjector, this.entryGroup, rankOf);
    [this.entryPair, this.pairGroup, this.pairProjector, this.pairOffset] = [pairs.entryPair, pairs.pairKey, pairs.pairProjector, pairs.pairOffset];
    this.retainedFractions = new RetainedFractions(coefficients, this.entryProjector, this.partitions.coarse.entryBlock, rankOf);
    const slotEntries: number[][] = Array.from({ length: slots.size }, () => []);
    this.entrySlot.forEach((slot, e) => (slotEntries[slot] as number[]).push(e));
    this.slotEntries = slotEntries.map((list) => Int32Array.from(list));

    const scaleAll = (granularity: Granularity) => Float64Array.from(slotClasses, (c) => resolveScale(c, gate, { granularity, overrideScales: {} }).value);
    this.gateScale = { coarse: scaleAll('coarse'), fine: scaleAll('fine'), off: new Float64Array(slots.size).fill(1) };
    const index = new Map<string, { slots: number[]; positions: number[] }>();
    slotClasses.forEach((c, slot) => overrideKeys(c).forEach((key, position) => {
      const at = index.get(key) ?? { slots: [], positions: [] };
      at.slots.push(slot);
      at.positions.push(position);
      index.set(key, at);
    }));
    this.overrideIndex = new Map([...index].map(([key, at]) => [key, { slots: Int32Array.from(at.slots), positions: Int32Array.from(at.positions) }]));

    this.slotScale = new Float64Array(slots.size).fill(Number.NaN);
    this.nextScale = new Float64Array(slots.size);
    this.overrideWinner = new Int32Array(slots.size);
    this.groupSlope = new Float64Array(groupCount * 2);
    this.scalarSlope = new Float64Array(groupCount * 2);
    this.removedSlope = new Float64Array(groupCount * 2);
    this.meanScale = { fine: new Float64Array(slots.size), coarse: new Float64Array(coarse.size) };
    this.weights = this.spectra.map((s) => new Float64Array(s.length));
    this.normWeights = this.spectra.map((s) => new Float64Array(s.length));
    this.g = new Float64Array(2 * (this.pairOffset[this.pairOffset.length - 1] as number));
  }

  evaluate(settings: CraneDeltaSettings): LayerResult {
    const { stages, granularity, alpha } = settings;
    const kind: UpdateKind = stages.threshold ? THRESHOLDED : RAW;
    const gateState: GateState = stages.gate ? granularity : 'off';
    this.resolveSlotScales(gateState, settings.overrideScales);
    const scalesAt = `${kind} ${this.scaleVersion}`;
    if (this.scalarsAt !== scalesAt) this.refreshScalars(kind);
    this.scalarsAt = scalesAt;
    if (stages.gsp) {
      const masksAt = `${settings.tau} ${settings.steepness}`;
      if (this.masksAt !== masksAt) this.refreshMasks(settings.tau, settings.steepness);
      this.masksAt = masksAt;
      if (this.gAt !== scalesAt) this.refreshG(kind, gateState);
      this.gAt = scalesAt;
      if (this.removedAt !== `${scalesAt} ${masksAt}`) this.refreshRemoved();
      this.removedAt = `${scalesAt} ${masksAt}`;
    }
    const retainedAt = stages.gsp ? `${kind} ${granularity} ${this.masksAt}` : `no GSP ${granularity}`;
    if (this.retainedAt !== retainedAt) {
      const { entryBlock, count } = this.partitions[granularity];
      this.retained = stages.gsp ? this.retainedFractions.at(kind, entryBlock, count, this.normWeights) : new Float64Array(count).fill(1);
      this.retainedAt = retainedAt;
    }
    for (let i = 0; i < this.groupSlope.length; i++) {
      this.groupSlope[i] = (this.scalarSlope[i] as number) - (stages.gsp ? (this.removedSlope[i] as number) : 0);
    }
    return {
      groupSlope: this.groupSlope,
      fineScale: this.slotScale,
      coarseScale: this.meanScale.coarse,
      effectiveScale: this.meanScale[granularity].map((s) => alpha * s),
      retainedFraction: this.retained.slice(),
    };
  }

  /** S per slot by the one rule (protocol/block-scale.ts): an override (best key first) wins, else the gate's S or 1. */
  private resolveSlotScales(gateState: GateState, overrides: Readonly<Record<string, number>>): void {
    const next = this.nextScale;
    next.set(this.gateScale[gateState]);
    const winner = this.overrideWinner;
    winner.fill(0x7fffffff);
    for (const key of Object.keys(overrides)) {
      const at = this.overrideIndex.get(key);
      if (at === undefined) continue;
      const value = overrides[key] as number;
      for (let j = 0; j < at.slots.length; j++) {
        const slot = at.slots[j] as number;
        const position = at.positions[j] as number;
        if (position < (winner[slot] as number)) {
          winner[slot] = position;
          next[slot] = value;
        }
      }
    }
    for (let slot = 0; slot < next.length; slot++) {
      if (!Object.is(next[slot], this.slotScale[slot])) {
        this.slotScale.set(next);
        this.scaleVersion++;
        return;
      }
    }
  }

  /** Σ s·(g·U) per group, and the coordinate-weighted mean S per block at both granularities. */
  private refreshScalars(kind: UpdateKind): void {
    const { scalars } = this.coefficients;
    this.scalarSlope.fill(0);
    for (const granularity of ['fine', 'coarse'] as const) {
      const { entryBlock, count } = this.partitions[granularity];
      const sum = this.meanScale[granularity];
      const coordinates = new Float64Array(count);
      sum.fill(0);
      for (let e = 0; e < entryBlock.length; e++) {
        const block = entryBlock[e] as number;
        const c = this.entryCoordinates[e] as number;
        sum[block] = (sum[block] as number) + (this.slotScale[this.entrySlot[e] as number] as number) * c;
        coordinates[block] = (coordinates[block] as number) + c;
      }
      for (let b = 0; b < count; b++) sum[b] = (coordinates[b] as number) > 0 ? (sum[b] as number) / (coordinates[b] as number) : 0;
    }
    for (let e = 0; e < this.entrySlot.length; e++) {
      const s = this.slotScale[this.entrySlot[e] as number] as number;
      const at = e * MOMENTS + kind;
      const group = 2 * (this.entryGroup[e] as number);
      this.scalarSlope[group] = (this.scalarSlope[group] as number) + s * (scalars[at + GRAD_R] as number);
      this.scalarSlope[group + 1] = (this.scalarSlope[group + 1] as number) + s * (scalars[at + GRAD_A] as number);
    }
  }

  /** w and 2w − w² per projector at τ, k. */
  private refreshMasks(tau: number, steepness: number): void {
    this.spectra.forEach((ratios, p) => {
      const w = sigmoidWeights(ratios, tau, steepness);
      (this.weights[p] as Float64Array).set(w);
      (this.normWeights[p] as Float64Array).set(w.map((wi) => 2 * wi - wi * wi));
    });
  }

  /** G at the current S: the gate state's G (computed once), plus (s − s_gate)·d for the blocks whose S differs from it. */
  private refreshG(kind: UpdateKind, gateState: GateState): void {
    const baseKey = `${kind} ${gateState}`;
    let base = this.baseG.get(baseKey);
    const gateScale = this.gateScale[gateState];
    if (base === undefined) {
      base = new Float64Array(this.g.length);
      for (let e = 0; e < this.entrySlot.length; e++) this.addDirections(base, e, kind, gateScale[this.entrySlot[e] as number] as number);
      this.baseG.set(baseKey, base);
    }
    this.g.set(base);
    for (let slot = 0; slot < this.slotScale.length; slot++) {
      const change = (this.slotScale[slot] as number) - (gateScale[slot] as number);
      if (change !== 0) for (const e of this.slotEntries[slot] as Int32Array) this.addDirections(this.g, e, kind, change);
    }
  }

  /** target[pair] += scale·(d_R, d_A) of entry e's directions. */
  private addDirections(target: Float64Array, e: number, kind: UpdateKind, scale: number): void {
    const pair = this.entryPair[e] as number;
    if (pair < 0 || scale === 0) return;
    const { directions } = this.coefficients;
    const { directionOffset, rank } = this.coefficients.entries[e] as { directionOffset: number; rank: number };
    for (let i = 0, from = directionOffset * MOMENTS + kind, to = 2 * (this.pairOffset[pair] as number); i < rank; i++, from += MOMENTS, to += 2) {
      target[to] = (target[to] as number) + scale * (directions[from + GRAD_R] as number);
      target[to + 1] = (target[to + 1] as number) + scale * (directions[from + GRAD_A] as number);
    }
  }

  /** Σ_pairs w·G into each group's removed slope. */
  private refreshRemoved(): void {
    this.removedSlope.fill(0);
    for (let pair = 0; pair < this.pairGroup.length; pair++) {
      const w = this.weights[this.pairProjector[pair] as number] as Float64Array;
      // The two losses' G interleave (R, A per direction): one pass, two sums.
      let r = 0, a = 0;
      for (let i = 0, at = 2 * (this.pairOffset[pair] as number); i < w.length; i++, at += 2) {
        r += (w[i] as number) * (this.g[at] as number);
        a += (w[i] as number) * (this.g[at + 1] as number);
      }
      const group = 2 * (this.pairGroup[pair] as number);
      this.removedSlope[group] = (this.removedSlope[group] as number) + r;
      this.removedSlope[group + 1] = (this.removedSlope[group + 1] as number) + a;
    }
  }
}
