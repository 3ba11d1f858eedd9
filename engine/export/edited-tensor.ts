/**
 * One tensor of an export: read θ_I and θ_T, refuse non-finite values, apply the edit.
 *
 *   produceEdited(planned, instruct, thinking, edit, notes) → values for the writer
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
import type { TensorPayload } from '../io/tensor-encoding.ts';
import type { PlannedTensor } from './export-plan.ts';

export async function produceEdited(
  planned: PlannedTensor,
  instruct: Checkpoint,
  thinking: Checkpoint,
  edit: PairedEdit,
  notes: string[],
): Promise<TensorPayload> {
  const { name } = planned.spec;
  // The output is based on Instruct wherever it has the tensor (see export-plan.ts).
  const [base, baseInfo, baseLabel] = planned.instruct !== undefined ? [instruct, planned.instruct, 'Instruct'] : [thinking, planned.thinking as CheckpointTensor, 'Thinking'];
  const present = [planned.instruct, planned.thinking].filter((t): t is CheckpointTensor => t !== undefined);
  if (present.some((t) => !isFloatDType(t.dtype))) {
    if (present.length === 2) notes.push(`${name}: not a floating-point tensor, copied from ${baseLabel}`);
    return base.readRaw(name);
  }
  const read = async (checkpoint: Checkpoint, info: CheckpointTensor | undefined): Promise<TensorSide | undefined> => {
    if (info === undefined) return undefined;
    const values = await checkpoint.readFloat32(name);
    assertFiniteValues(values, join(checkpoint.dir, info.shard), name, 'contains', 'nothing was written');
    return { shape: info.shape, values };
  };
  const [instructSide, thinkingSide] = [await read(instruct, planned.instruct), await read(thinking, planned.thinking)];
  const result = editPair({ name, instruct: instructSide, thinking: thinkingSide }, edit);
  if (result.note !== undefined) notes.push(`${name}: ${result.note}`);
  assertFiniteValues(result.values, join(base.dir, baseInfo.shard), name, 'was edited into', 'nothing was written');
  return result.values;
}
