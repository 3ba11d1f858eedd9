/**
 * One tensor of an export: read θ_I and θ_T, refuse non-finite values, apply the edit.
 *
 *   exportBuffers(plan, instruct, thinking) → ExportBuffers   two reusable arrays, one per side, sized to the largest tensor,
 *                                                           and each side's read-ahead of its small tensors (read-ahead.ts)
 *   produceEdited(planned, instruct, thinking, edit, notes, buffers?, blockEdits?) → values for the writer
 *
 * Memory: each side is read into its own reusable array (without `buffers`, into fresh ones), the
 * edit is handed both (it may overwrite them instead of allocating: PairedEdit), and a half-float
 * result that lies in those arrays is narrowed in place into the first half of its own bytes. So an element-wise edit (task arithmetic, CRANE's δ rule)
 * holds two arrays of the largest tensor and nothing else tensor-sized, and no tensor allocates
 * fresh pages: what made the export's peak RSS ~4× its largest tensor (θ_I, θ_T, δ, θ_M and
 * the encoded copy, garbage of the previous tensor on top). The writer finishes a tensor before
 * the next is read, so nothing the buffers hold is read twice. A half-float pair that `blockEdits`
 * (method-edit.ts methodBlockEdits) gives an edit for goes block by block instead
 * (elementwise-tensor.ts): one float32 copy of the largest tensor, and cache-sized passes.
 *
 * Any NaN or ±Inf in an input stops the export with a CheckpointError naming the shard file and
 * the tensor (an edit cannot repair it, and writing it on would spread it silently); an edit that
 * turns finite inputs into a non-finite value stops it too. With `buffers` neither check has a
 * pass of its own: the inputs' rides on their widening (read-ahead.ts), the result's on its
 * narrowing (finite-values.ts narrowFiniteInto, in place); an F32 result, or one the edit returned
 * outside the buffers, is checked by itself. Tensors that are not floating point
 * on either side are copied raw from the side the output is based on. editPair's notes (missing
 * side, shape mismatch, skipped projection) are appended to `notes` for the model card.
 */
import { join } from 'node:path';
import { editPair, type PairedEdit, type TensorSide } from '../crane/tensor-pair.ts';
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import { isFloatDType } from '../io/dtype.ts';
import { assertFiniteValues, narrowFiniteInto } from '../io/finite-values.ts';
import type { TensorPayload } from '../io/tensor-encoding.ts';
import type { PlannedTensor } from './export-plan.ts';
import { editsInBlocks, produceInBlocks } from './elementwise-tensor.ts';
import type { BlockEdits } from './method-edit.ts';
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
  const edited = plan.filter((p) => [p.instruct, p.thinking].every((t) => t === undefined || isFloatDType(t.dtype)));
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
  blockEdits?: BlockEdits,
): Promise<TensorPayload> {
  const { name } = planned.spec;
  const blockEdit = buffers !== undefined && editsInBlocks(planned) ? blockEdits?.(name, (planned.instruct as CheckpointTensor).shape) : undefined;
  if (blockEdit !== undefined) return produceInBlocks(planned, instruct, thinking, blockEdit, notes, buffers as ExportBuffers);
  // The output is based on Instruct wherever it has the tensor (see export-plan.ts).
  const [base, baseInfo, baseLabel] = planned.instruct !== undefined ? [instruct, planned.instruct, 'Instruct'] : [thinking, planned.thinking as CheckpointTensor, 'Thinking'];
  const present = [planned.instruct, planned.thinking].filter((t): t is CheckpointTensor => t !== undefined);
  if (present.some((t) => !isFloatDType(t.dtype))) {
    if (present.length === 2) notes.push(`${name}: not a floating-point tensor, copied from ${baseLabel}`);
    return base.readRaw(name);
  }
  const read = async (checkpoint: Checkpoint, info: CheckpointTensor | undefined, buffer: Float32Array | undefined, ahead: ReadAhead | undefined): Promise<TensorSide | undefined> => {
    if (info === undefined) return undefined;
    if (buffer !== undefined && ahead !== undefined) return { shape: info.shape, values: await ahead.readFiniteFloat32(name, buffer) };
    const values = await checkpoint.readFloat32(name, buffer);
    assertFiniteValues(values, join(checkpoint.dir, info.shard), name, 'contains', 'nothing was written');
    return { shape: info.shape, values };
  };
  // Both sides' reads in flight at once (Thinking's copy runs while Instruct's is widened);
  // awaited in order, so a pair that is bad on both sides is refused for Instruct first.
  const thinkingRead = read(thinking, planned.thinking, buffers?.thinking, buffers?.readAhead.thinking);
  thinkingRead.catch(() => undefined); // surfaces below, once Instruct's read has succeeded
  const instructSide = await read(instruct, planned.instruct, buffers?.instruct, buffers?.readAhead.instruct);
  const thinkingSide = await thinkingRead;
  // Both sides were read for this tensor alone: the edit may overwrite them.
  const result = editPair({ name, instruct: instructSide, thinking: thinkingSide }, edit, true);
  if (result.note !== undefined) notes.push(`${name}: ${result.note}`);
  const refuse = [join(base.dir, baseInfo.shard), name, 'was edited into', 'nothing was written'] as const;
  // Narrowed in place only inside the read buffers: an array the edit returns from elsewhere (RAIN's tensors) is not ours to overwrite.
  const { dtype } = planned.spec;
  const ours = buffers !== undefined && (result.values.buffer === buffers.instruct.buffer || result.values.buffer === buffers.thinking.buffer);
  if (ours && (dtype === 'BF16' || dtype === 'F16')) {
    return narrowFiniteInto(dtype, result.values, new Uint16Array(result.values.buffer, result.values.byteOffset, result.values.length), 0, ...refuse);
  }
  assertFiniteValues(result.values, ...refuse);
  return result.values;
}
