/**
 * One tensor of an export: read θ_I and θ_T, refuse non-finite values, apply the edit.
 *
 *   exportBuffers(plan, instruct, thinking) → ExportBuffers   two reusable arrays, one per side, sized to the largest tensor,
 *                                                           and each side's read-ahead of its small tensors (read-ahead.ts)
 *   produceEdited(planned, instruct, thinking, edit, notes, buffers?) → values for the writer
 *     = copiedRaw(…) for a tensor that is not floating point (isEdited false), else
 *       readSides(…) then editedPayload(spec, sides, edit, ours), which the edit workers run too (parallel-edits.ts)
 *
 * Memory: each side is read into its own reusable array (without `buffers`, into fresh ones), the
 * edit is handed both (it may overwrite them instead of allocating: PairedEdit), and a half-float
 * result that lies in those arrays is narrowed in place into the first half of its own bytes. So an element-wise edit (task arithmetic, CRANE's δ rule)
 * holds two arrays of the largest tensor and nothing else tensor-sized, and no tensor allocates
 * fresh pages: what made the export's peak RSS ~4× its largest tensor (θ_I, θ_T, δ, θ_M and
 * the encoded copy, garbage of the previous tensor on top). The writer finishes a tensor before
 * the next is read, so nothing the buffers hold is read twice.
 *
 * Any NaN or ±Inf in an input stops the export with a CheckpointError naming the shard file and
 * the tensor (an edit cannot repair it, and writing it on would spread it silently); an edit that
 * turns finite inputs into a non-finite value stops it too. Tensors that are not floating point
 * on either side are copied raw from the side the output is based on. editPair's notes (missing
 * side, shape mismatch, skipped projection) are appended to `notes` for the model card.
 */
import { join } from 'node:path';
import { editPair, type PairedEdit, type TensorSide } from '../crane/tensor-pair.ts';
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import { isFloatDType } from '../io/dtype.ts';
import { assertFiniteValues } from '../io/finite-values.ts';
import { encodeHalf, narrowInPlace } from '../io/half-float.ts';
import type { TensorPayload, TensorSpec } from '../io/tensor-encoding.ts';
import type { PlannedTensor } from './export-plan.ts';
import { ReadAhead } from './read-ahead.ts';

/** One reusable float32 array per side, as long as the largest floating tensor either side holds, and each side's read-ahead. */
export interface ExportBuffers {
  readonly instruct: Float32Array;
  readonly thinking: Float32Array;
  readonly readAhead: { readonly instruct: ReadAhead; readonly thinking: ReadAhead };
}

/** The buffers for exporting `plan` (in its order) from the pair; close() them when done. */
export function exportBuffers(plan: readonly PlannedTensor[], instruct: Checkpoint, thinking: Checkpoint): ExportBuffers & { close(): Promise<void> } {
  let largest = 0;
  for (const p of plan) {
    for (const side of [p.instruct, p.thinking]) {
      if (side !== undefined && isFloatDType(side.dtype)) largest = Math.max(largest, side.shape.reduce((a, b) => a * b, 1));
    }
  }
  // The tensors produceEdited reads as float32, side by side, in the order it reads them.
  const edited = plan.filter(isEdited);
  const present = (side: 'instruct' | 'thinking') => edited.flatMap((p) => p[side] ?? []);
  const readAhead = { instruct: new ReadAhead(instruct, present('instruct')), thinking: new ReadAhead(thinking, present('thinking')) };
  return {
    instruct: new Float32Array(largest),
    thinking: new Float32Array(largest),
    readAhead,
    close: async () => { await Promise.all([readAhead.instruct.close(), readAhead.thinking.close()]); },
  };
}

export async function produceEdited(
  planned: PlannedTensor,
  instruct: Checkpoint,
  thinking: Checkpoint,
  edit: PairedEdit,
  notes: string[],
  buffers?: ExportBuffers,
): Promise<TensorPayload> {
  if (!isEdited(planned)) return copiedRaw(planned, instruct, thinking, notes);
  const sides = await readSides(planned, instruct, thinking, buffers);
  // Narrowed in place only inside the read buffers: an array the edit returns from elsewhere (RAIN's tensors) is not ours to overwrite.
  const ours = (values: Float32Array) => buffers !== undefined && (values.buffer === buffers.instruct.buffer || values.buffer === buffers.thinking.buffer);
  const { payload, note } = editedPayload(planned.spec, sides.instruct, sides.thinking, edit, ours);
  if (note !== undefined) notes.push(note);
  return payload;
}

/** Whether the tensor is edited: floating point on every side that has it (else it is copied raw). */
export function isEdited(planned: PlannedTensor): boolean {
  return [planned.instruct, planned.thinking].every((t) => t === undefined || isFloatDType(t.dtype));
}

/** A tensor that is not floating point on some side, copied raw from the side the output is based on. */
export function copiedRaw(planned: PlannedTensor, instruct: Checkpoint, thinking: Checkpoint, notes: string[]): Promise<TensorPayload> {
  // The output is based on Instruct wherever it has the tensor (see export-plan.ts).
  const [base, label] = planned.instruct !== undefined ? [instruct, 'Instruct'] : [thinking, 'Thinking'];
  if (planned.instruct !== undefined && planned.thinking !== undefined) notes.push(`${planned.spec.name}: not a floating-point tensor, copied from ${label}`);
  return base.readRaw(planned.spec.name);
}

/** Both sides of an edited tensor as float32, into `buffers` (through their read-ahead) when given, else fresh arrays. */
export async function readSides(
  planned: PlannedTensor,
  instruct: Checkpoint,
  thinking: Checkpoint,
  buffers?: ExportBuffers,
): Promise<{ readonly instruct?: ReadSide; readonly thinking?: ReadSide }> {
  const { name } = planned.spec;
  const read = async (checkpoint: Checkpoint, info: CheckpointTensor | undefined, buffer: Float32Array | undefined, ahead: ReadAhead | undefined): Promise<ReadSide | undefined> => {
    if (info === undefined) return undefined;
    const values = buffer !== undefined && ahead !== undefined ? await ahead.readFloat32(name, buffer) : await checkpoint.readFloat32(name, buffer);
    return { shape: info.shape, values, file: join(checkpoint.dir, info.shard) };
  };
  const instructSide = await read(instruct, planned.instruct, buffers?.instruct, buffers?.readAhead.instruct);
  const thinkingSide = await read(thinking, planned.thinking, buffers?.thinking, buffers?.readAhead.thinking);
  return { ...(instructSide === undefined ? {} : { instruct: instructSide }), ...(thinkingSide === undefined ? {} : { thinking: thinkingSide }) };
}

/** One side of a tensor as read for the edit: its float32 values and the shard file errors name. */
export interface ReadSide extends TensorSide {
  readonly file: string;
}

/**
 * The writer's payload for one floating tensor from its sides as read: each side refused if it holds a
 * non-finite value (Instruct first), the edit applied to both (handed over: they were read for this
 * call alone), its result refused if non-finite, and a half-float result narrowed — in place when
 * `ours(values)` says the array is the reader's, else into a fresh array. The same function runs on
 * the main thread and in the edit workers (edit-worker.ts), so both give the same bytes.
 */
export function editedPayload(
  spec: TensorSpec,
  instruct: ReadSide | undefined,
  thinking: ReadSide | undefined,
  edit: PairedEdit,
  ours: (values: Float32Array) => boolean,
): { readonly payload: TensorPayload; readonly note?: string } {
  const { name, dtype } = spec;
  for (const side of [instruct, thinking]) {
    if (side !== undefined) assertFiniteValues(side.values, side.file, name, 'contains', 'nothing was written');
  }
  const result = editPair({ name, instruct, thinking }, edit, true);
  // The output is based on Instruct wherever it has the tensor (see export-plan.ts).
  const baseFile = (instruct ?? (thinking as ReadSide)).file;
  assertFiniteValues(result.values, baseFile, name, 'was edited into', 'nothing was written');
  const payload = dtype === 'BF16' || dtype === 'F16' ? (ours(result.values) ? narrowInPlace(dtype, result.values) : encodeHalf(dtype, result.values)) : result.values;
  return result.note === undefined ? { payload } : { payload, note: `${name}: ${result.note}` };
}
