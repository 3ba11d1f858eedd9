/**
 * CRANE's per-tensor edit: θ_M = θ_I + Π_GSP( α · S · T(δ) ), plus the special-tensor rules.
 *
 *   craneDelta(tensor, shape, thetaI, thetaT, settings, context) → CraneDelta   (the `crane` rule's Δ and its provenance)
 *   craneEdit(settings, context) → PairedEdit                                   (every rule, for editPair)
 *   craneBlockEdit(settings, name, shape) → BlockEdit | undefined                (the embedding's and lm_head's rule, a block of values at a time)
 *
 * Settings are the protocol's ResolvedCraneSettings (overrides as S by block key, token rows).
 * `arith: 'reference'` rounds every step to bf16 as the reference does (reference-arithmetic.ts);
 * absent or `f32`, the edit is computed in float32.
 * Stage toggles: `threshold` off → δ is used raw; `gate` off → S = 1 (overrides still apply);
 * `gsp` off → no projection. All steps after T are linear, so scaling before projecting is
 * the same edit as the spec's order. A tensor whose projector is missing, or whose last
 * dimension differs from the projector's, is left unprojected and the reason is reported.
 * Routers follow the router rule (SLERP, t = α · routerAlphaFraction) whatever the toggles say.
 * A fused expert tensor is edited part by part, each expert's gate, up and down as the per-expert
 * layout stores them (expert-parts.ts): its own T(δ) threshold and, in fine mode, its own S, so
 * both layouts give the same merged weights.
 */
import { sigmoidWeights } from '../protocol/gsp-mask.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { projectInputSide, type GspProjector } from './gsp-projector.ts';
import { thresholdOf } from './magnitude-threshold.ts';
import { expertParts, isFusedExpertTensor, partOf } from './expert-parts.ts';
import { bf16AddDelta, bf16ScaleInPlace, bf16TaskVector, bf16ThresholdInPlace, toBf16 } from './reference-arithmetic.ts';
import { resolveScale, type GateTable, type ScaleChoice } from './gate-scales.ts';
import { editRouter, isTokenRowRule, tokenRowEdit, type TokenRowEdit, type TokenRowRule } from './special-tensors.ts';
import { classifyTensor, projectorKey, type TensorClass } from './tensor-classification.ts';
import { addDelta, taskVector, type EditedValues, type PairedEdit } from './tensor-pair.ts';

/** What the deltas are scaled and projected by (the stage toggles, α, q, τ, k, S); the special tensors' rules need the rest. */
export type CraneDeltaSettings = Pick<ResolvedCraneSettings, 'alpha' | 'keepQuantile' | 'tau' | 'steepness' | 'stages' | 'granularity' | 'overrideScales' | 'arith'>;

export interface CraneContext {
  /** Scored gate blocks; null when no gate analysis exists (S = 1). */
  readonly gate: GateTable | null;
  /** The projector stored under a key such as `layer_3_attn_input`, if one was computed. */
  readonly projector: (key: string) => GspProjector | undefined;
}

export interface CraneDelta {
  readonly delta: Float32Array;
  /** The S of the tensor's block; a fused expert tensor's is its group's, and `expertScales` has each part's. */
  readonly scale: ScaleChoice;
  /** A fused expert tensor's S per part (expert e's gate, up, …, in storage order). */
  readonly expertScales?: readonly ScaleChoice[];
  /** Projector key applied, or null. */
  readonly projectedWith: string | null;
  /** Why a projection that the tensor's class calls for did not happen. */
  readonly note?: string;
}

/** `handedOver`: θ_T may be overwritten (it becomes δ), as a PairedEdit's caller allows. */
export function craneDelta(
  tensor: TensorClass,
  shape: readonly number[],
  thetaI: Float32Array,
  thetaT: Float32Array,
  settings: CraneDeltaSettings,
  context: CraneContext,
  handedOver = false,
): CraneDelta {
  if (isFusedExpertTensor(tensor)) return fusedCraneDelta(tensor, shape, thetaI, thetaT, settings, context, handedOver);
  const scale = resolveScale(tensor, settings.stages.gate ? context.gate : null, settings);
  const factor = settings.alpha * scale.value;
  const reference = settings.arith === 'reference';
  if (factor === 0 && !reference) return { delta: new Float32Array(thetaI.length), scale, projectedWith: null };
  const delta = reference ? bf16ScaledDelta(thetaI, thetaT, factor, settings) : f32ScaledDelta(thetaI, thetaT, factor, settings, handedOver);
  if (!settings.stages.gsp || tensor.gspKey === null || tensor.layer === null) return { delta, scale, projectedWith: null };
  const key = projectorKey(tensor.layer, tensor.gspKey);
  const projector = context.projector(key);
  if (projector === undefined) return { delta, scale, projectedWith: null, note: `no projector ${key}: left unprojected` };
  const dIn = shape[shape.length - 1] ?? 0;
  if (dIn !== projector.dim) {
    return { delta, scale, projectedWith: null, note: `input side ${dIn} ≠ projector ${key} width ${projector.dim}: left unprojected` };
  }
  const weights = sigmoidWeights(projector.sigma, settings.tau, settings.steepness);
  const projected = projectInputSide(delta, dIn, projector, weights);
  return { delta: reference ? toBf16(projected) : projected, scale, projectedWith: key };
}

/** Each part's Δ written into one tensor-sized array: θ_T's when handed over (a part reads only its own slice), else a fresh one. */
function fusedCraneDelta(
  tensor: TensorClass,
  shape: readonly number[],
  thetaI: Float32Array,
  thetaT: Float32Array,
  settings: CraneDeltaSettings,
  context: CraneContext,
  handedOver: boolean,
): CraneDelta {
  const delta = handedOver ? thetaT : new Float32Array(thetaI.length);
  const parts = expertParts(tensor, shape).map((part) => {
    const result = craneDelta(part.tensor, part.shape, partOf(thetaI, part), partOf(thetaT, part), settings, context, handedOver);
    delta.set(result.delta, part.offset);
    return result;
  });
  const scale = resolveScale(tensor, settings.stages.gate ? context.gate : null, settings);
  const note = parts.find((part) => part.note !== undefined)?.note;
  const projectedWith = parts[0]?.projectedWith ?? null;
  return { delta, scale, expertScales: parts.map((part) => part.scale), projectedWith, ...(note === undefined ? {} : { note }) };
}

/**
 * α·S·T(δ) in float32 (the studio's arithmetic), in one array: θ_T's when handed over, else a fresh one.
 * T(δ) and the scaling share one pass over δ (an export's tensors are this loop's main cost): each
 * survivor is rounded to float32 after ×1/(1−q), as magnitudeThreshold stores it, then scaled, so
 * the values are those of thresholding and scaling in turn.
 */
function f32ScaledDelta(thetaI: Float32Array, thetaT: Float32Array, factor: number, settings: CraneDeltaSettings, handedOver: boolean): Float32Array {
  const delta = taskVector(thetaI, thetaT, handedOver ? thetaT : undefined);
  if (!settings.stages.threshold) {
    for (let i = 0; i < delta.length; i++) delta[i] = factor * (delta[i] as number);
    return delta;
  }
  const { threshold, rescale } = thresholdOf(delta, settings.keepQuantile);
  for (let i = 0; i < delta.length; i++) {
    const v = delta[i] as number;
    delta[i] = factor * (Math.abs(v) > threshold ? Math.fround(v * rescale) : 0);
  }
  return delta;
}

/** α·S·T(δ) rounded to bf16 at each step, as the reference (reference-arithmetic.ts). */
function bf16ScaledDelta(thetaI: Float32Array, thetaT: Float32Array, factor: number, settings: CraneDeltaSettings): Float32Array {
  const delta = bf16TaskVector(toBf16(thetaI), toBf16(thetaT));
  if (settings.stages.threshold) bf16ThresholdInPlace(delta, settings.keepQuantile);
  bf16ScaleInPlace(delta, factor);
  return delta;
}

/** θ_I + Δ in the settings' arithmetic; in f32 it overwrites Δ, which the caller made for this sum. */
function sumWith(settings: Pick<ResolvedCraneSettings, 'arith'>, thetaI: Float32Array, delta: Float32Array): Float32Array {
  return settings.arith === 'reference' ? bf16AddDelta(toBf16(thetaI), delta) : addDelta(thetaI, delta, delta);
}

export function craneEdit(settings: ResolvedCraneSettings, context: CraneContext): PairedEdit {
  return (name, shape, thetaI, thetaT, handedOver) => {
    const tensor = classifyTensor(name);
    if (isTokenRowRule(tensor.rule)) return craneTokenRowEdit(settings, tensor.rule, shape)(thetaI, thetaT, 0, handedOver ?? false);
    switch (tensor.rule) {
      case 'router': return { values: editRouter(thetaI, thetaT, shape, settings.alpha, settings.special, settings.arith) };
      case 'crane': {
        const { delta, note } = craneDelta(tensor, shape, thetaI, thetaT, settings, context, handedOver);
        const values = sumWith(settings, thetaI, delta);
        return note === undefined ? { values } : { values, note };
      }
    }
  };
}

/** A PairedEdit of one range of a tensor's values: θ_M over [first, first + thetaI.length) from θ_I and θ_T over that range, both the edit's to overwrite. */
export type BlockEdit = (thetaI: Float32Array, thetaT: Float32Array, first: number) => EditedValues;

/**
 * craneEdit's edit of tensor `name` a block of values at a time where its rule reads each value's
 * row alone — the embedding and lm_head (special-tensors.ts tokenRowEdit), the same values and
 * note — and undefined where it needs the whole tensor: T(δ)'s threshold, GSP's rows of δ, the
 * router's SLERP norms. The token ids are checked here, once per tensor.
 */
export function craneBlockEdit(settings: ResolvedCraneSettings, name: string, shape: readonly number[]): BlockEdit | undefined {
  const { rule } = classifyTensor(name);
  if (!isTokenRowRule(rule)) return undefined;
  const edit = craneTokenRowEdit(settings, rule, shape);
  return (thetaI, thetaT, first) => edit(thetaI, thetaT, first, true);
}

/** The one place craneEdit and craneBlockEdit take a token-row rule's settings from. */
function craneTokenRowEdit(settings: ResolvedCraneSettings, rule: TokenRowRule, shape: readonly number[]): TokenRowEdit {
  return tokenRowEdit(rule, shape, settings.tokens, settings.special, settings.arith);
}
