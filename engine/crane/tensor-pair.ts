/**
 * One tensor of the Instruct/Thinking pair, and the rules for pairs that are not whole.
 *
 *   editPair(pair, edit) → EditResult
 *
 * Every merge method (CRANE and the baselines) is a PairedEdit: given a tensor that exists on
 * both sides with one shape, return θ_M. editPair applies the shared rules around it:
 * missing on one side → copy the side that has it; shapes differ → keep θ_I and say so.
 * Copies hand back the side's own array (no duplicate of a possibly large tensor).
 */

export interface TensorSide {
  readonly shape: readonly number[];
  readonly values: Float32Array;
}

export interface TensorPair {
  readonly name: string;
  readonly instruct?: TensorSide;
  readonly thinking?: TensorSide;
}

/**
 * θ_M for a tensor present on both sides with the same shape, with a note when a step was skipped.
 * With `handedOver` the caller keeps no use for either array (it read them for this call), so the
 * edit may overwrite them or return one instead of allocating tensor-sized arrays: the export
 * then holds two tensors at its peak, not four. Without it, the inputs are never written.
 */
export type PairedEdit = (name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array, handedOver?: boolean) => EditedValues;

export interface EditedValues {
  readonly values: Float32Array;
  readonly note?: string;
}

export type EditOutcome = 'edited' | 'instruct-only' | 'thinking-only' | 'shape-mismatch';

export interface EditResult {
  readonly name: string;
  readonly shape: readonly number[];
  readonly values: Float32Array;
  readonly outcome: EditOutcome;
  /** Human-readable reason for any outcome other than `edited`, or for a skipped step. */
  readonly note?: string;
}

/** `handedOver`: the pair's arrays are the edit's to overwrite (see PairedEdit). */
export function editPair(pair: TensorPair, edit: PairedEdit, handedOver = false): EditResult {
  const { name, instruct, thinking } = pair;
  if (instruct === undefined && thinking === undefined) throw new RangeError(`${name} is missing on both sides`);
  if (thinking === undefined) return { name, ...(instruct as TensorSide), outcome: 'instruct-only', note: 'absent from the Thinking checkpoint: Instruct copied' };
  if (instruct === undefined) return { name, ...thinking, outcome: 'thinking-only', note: 'absent from the Instruct checkpoint: Thinking copied' };
  if (!sameShape(instruct.shape, thinking.shape)) {
    return {
      name,
      ...instruct,
      outcome: 'shape-mismatch',
      note: `shape [${instruct.shape.join(', ')}] (Instruct) vs [${thinking.shape.join(', ')}] (Thinking): Instruct kept`,
    };
  }
  return { name, shape: instruct.shape, ...edit(name, instruct.shape, instruct.values, thinking.values, handedOver), outcome: 'edited' };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** δ = θ_T − θ_I in float32, into `out` (a fresh array unless given; it may be θ_T itself). */
export function taskVector(thetaI: Float32Array, thetaT: Float32Array, out: Float32Array = new Float32Array(thetaI.length)): Float32Array {
  for (let i = 0; i < out.length; i++) out[i] = (thetaT[i] as number) - (thetaI[i] as number);
  return out;
}

/** θ_I + Δ in float32, into `out` (a fresh array unless given; it may be Δ itself). */
export function addDelta(thetaI: Float32Array, delta: Float32Array, out: Float32Array = new Float32Array(thetaI.length)): Float32Array {
  for (let i = 0; i < out.length; i++) out[i] = (thetaI[i] as number) + (delta[i] as number);
  return out;
}
