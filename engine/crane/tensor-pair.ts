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

/** θ_M for a tensor present on both sides with the same shape, with a note when a step was skipped. */
export type PairedEdit = (name: string, shape: readonly number[], thetaI: Float32Array, thetaT: Float32Array) => EditedValues;

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

export function editPair(pair: TensorPair, edit: PairedEdit): EditResult {
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
  return { name, shape: instruct.shape, ...edit(name, instruct.shape, instruct.values, thinking.values), outcome: 'edited' };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** δ = θ_T − θ_I in float32. */
export function taskVector(thetaI: Float32Array, thetaT: Float32Array): Float32Array {
  const delta = new Float32Array(thetaI.length);
  for (let i = 0; i < delta.length; i++) delta[i] = (thetaT[i] as number) - (thetaI[i] as number);
  return delta;
}

/** θ_I + Δ in float32. */
export function addDelta(thetaI: Float32Array, delta: Float32Array): Float32Array {
  const out = new Float32Array(thetaI.length);
  for (let i = 0; i < out.length; i++) out[i] = (thetaI[i] as number) + (delta[i] as number);
  return out;
}
