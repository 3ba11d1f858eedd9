/**
 * What the instant preview needs from an analysis, gathered tensor by tensor.
 *
 *   const builder = new PreviewCoefficientBuilder(keepQuantile, projectorLookup);
 *   builder.add(classifyTensor(name), shape, { delta, gradR, gradA });   // every scored layer tensor
 *   builder.addMoments(tensor, previewMoments(tensor, shape, inputs, q, lookup))   // the same, computed elsewhere
 *   builder.build() → PreviewCoefficients
 *
 * Tensors are summed into entries, one per (fine block, projector key): every tensor of an
 * entry is edited with the same S (S is resolved per fine block, see resolveScale) and the same
 * mask w (one projector), so the preview is linear in the entry's summed moments and never needs
 * to tell the tensors apart. A routed expert's fine block is the expert (gateBlock: S per
 * expert), so an expert's gate and up are one entry and its down another: a 48-layer,
 * 128-expert MoE has ~12k entries (its ~18k expert tensors × r directions would be more).
 *
 * A tensor is projected here exactly when craneDelta would project it: it has a GSP key, its
 * projector exists, and its last dimension equals the projector's width.
 *
 * The keep-quantile q is baked into the T(δ) moments: a preview at another q needs the
 * coefficients recomputed (the preview refuses rather than answering for the wrong q). Raw-δ
 * moments are kept too, so the "threshold off" toggle needs nothing new.
 *
 * Only the `crane` rule inside decoder layers is accepted: gradients exist only for layer
 * parameters (the spec), and routers follow SLERP, which is not α·S·T(δ).
 */
import { gateBlock } from '../crane/gate-accumulator.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { projectorKey, type LayerGroup, type TensorClass } from '../crane/tensor-classification.ts';
import { MOMENTS, tensorMoments, type MomentInputs, type TensorMoments } from './tensor-moments.ts';

export interface CoefficientEntry {
  readonly group: LayerGroup;
  /** The fine gate block: the projection, or a routed expert's index (gate-accumulator.ts gateBlock). */
  readonly block: string;
  readonly layer: number;
  /** Projector key (`layer_3_attn_input`) or null when the entry is never projected. */
  readonly projector: string | null;
  /** Number of tensors and of scalar coordinates summed into the entry. */
  readonly tensors: number;
  readonly coordinates: number;
  /** First direction of this entry in `directions` (in directions, not values), and how many. */
  readonly directionOffset: number;
  readonly rank: number;
}

export interface PreviewCoefficients {
  readonly keepQuantile: number;
  readonly entries: readonly CoefficientEntry[];
  /** entries.length × MOMENTS (tensor-moments.ts layout). */
  readonly scalars: Float64Array;
  /** Σ rank × MOMENTS. */
  readonly directions: Float64Array;
  /** σ_i/σ_1 per projector key (what sigmoidWeights needs: its σ_1 is then 1). */
  readonly spectra: ReadonlyMap<string, Float64Array>;
}

interface PendingEntry {
  readonly tensor: TensorClass;
  readonly projector: string | null;
  tensors: number;
  coordinates: number;
  readonly scalars: Float64Array;
  readonly directions: Float64Array | null;
}

/** One tensor's moments and the projector key they were taken against (null: not projected). */
export interface PreviewMoments {
  readonly projector: string | null;
  readonly coordinates: number;
  readonly moments: TensorMoments;
}

/** The moments PreviewCoefficientBuilder.add sums for one tensor; no builder state, so any thread may compute them. */
export function previewMoments(
  tensor: TensorClass, shape: readonly number[], inputs: MomentInputs, keepQuantile: number, projectorOf: (key: string) => GspProjector | undefined,
): PreviewMoments {
  if (tensor.layer === null || tensor.rule !== 'crane') {
    throw new RangeError(`${tensor.name}: only crane-rule tensors inside decoder layers have preview coefficients`);
  }
  const key = tensor.gspKey === null ? null : projectorKey(tensor.layer, tensor.gspKey);
  const projector = key === null ? undefined : projectorOf(key);
  const projected = projector !== undefined && shape[shape.length - 1] === projector.dim ? projector : undefined;
  return { projector: projected === undefined ? null : key, coordinates: inputs.delta.length, moments: tensorMoments(inputs, keepQuantile, projected) };
}

export class PreviewCoefficientBuilder {
  private readonly entries = new Map<string, PendingEntry>();
  private readonly spectra = new Map<string, Float64Array>();

  constructor(
    readonly keepQuantile: number,
    private readonly projector: (key: string) => GspProjector | undefined,
  ) {}

  add(tensor: TensorClass, shape: readonly number[], inputs: MomentInputs): void {
    this.addMoments(tensor, previewMoments(tensor, shape, inputs, this.keepQuantile, this.projector));
  }

  /** A tensor's moments computed elsewhere (previewMoments, e.g. on a worker thread), summed into its entry. */
  addMoments(tensor: TensorClass, { projector: projectedKey, coordinates, moments }: PreviewMoments): void {
    if (tensor.layer === null) throw new RangeError(`${tensor.name}: only tensors inside decoder layers have preview coefficients`);
    const projected = projectedKey === null ? undefined : this.projector(projectedKey);
    if (projectedKey !== null && projected === undefined) throw new RangeError(`${tensor.name}: no projector ${projectedKey}`);
    if (projected !== undefined) this.spectra.set(projectedKey as string, spectrumRatios(projected.sigma));
    const entryKey = `${tensor.group}.${gateBlock(tensor)}@${tensor.layer}|${projectedKey ?? ''}`;
    let entry = this.entries.get(entryKey);
    if (entry === undefined) {
      entry = { tensor, projector: projectedKey, tensors: 0, coordinates: 0, scalars: new Float64Array(MOMENTS), directions: projected === undefined ? null : new Float64Array(projected.rank * MOMENTS) };
      this.entries.set(entryKey, entry);
    }
    entry.tensors++;
    entry.coordinates += coordinates;
    addInto(entry.scalars, moments.scalars);
    if (entry.directions !== null) addInto(entry.directions, moments.directions as Float64Array);
  }

  build(): PreviewCoefficients {
    const pending = [...this.entries.values()];
    const scalars = new Float64Array(pending.length * MOMENTS);
    const directions = new Float64Array(pending.reduce((sum, e) => sum + (e.directions?.length ?? 0), 0));
    let directionOffset = 0;
    const entries = pending.map((e, index): CoefficientEntry => {
      scalars.set(e.scalars, index * MOMENTS);
      const rank = (e.directions?.length ?? 0) / MOMENTS;
      if (e.directions !== null) directions.set(e.directions, directionOffset * MOMENTS);
      const entry = {
        // A tensor with a layer index always has a layer group (tensor-classification).
        group: e.tensor.group as LayerGroup, block: gateBlock(e.tensor), layer: e.tensor.layer as number, projector: e.projector,
        tensors: e.tensors, coordinates: e.coordinates, directionOffset, rank,
      };
      directionOffset += rank;
      return entry;
    });
    return { keepQuantile: this.keepQuantile, entries, scalars, directions, spectra: new Map(this.spectra) };
  }
}

/** σ_i/σ_1; all zero when σ_1 = 0, which sigmoidWeights then maps to w = 0 as it would for σ. */
function spectrumRatios(sigma: Float64Array): Float64Array {
  const sigma1 = sigma[0] ?? 0;
  return sigma1 > 0 ? sigma.map((s) => s / sigma1) : new Float64Array(sigma.length);
}

function addInto(target: Float64Array, values: Float64Array): void {
  if (target.length !== values.length) throw new RangeError(`moment arrays differ in length: ${target.length} vs ${values.length}`);
  for (let i = 0; i < target.length; i++) target[i] = (target[i] as number) + (values[i] as number);
}
