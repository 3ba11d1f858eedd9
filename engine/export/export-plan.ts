/**
 * Which tensors an export writes, in which order, with which dtype and shape.
 *
 *   planExport(instruct, thinking, dtype) → PlannedTensor[]
 *
 * The union of both checkpoints' tensor names: Instruct's order first, then the names only the
 * Thinking checkpoint has (its order), so the same inputs always give the same shard layout.
 * Shape and source dtype come from the side the output is based on — Instruct wherever it has
 * the tensor (editPair keeps θ_I on a shape mismatch), else Thinking. 'source' keeps that dtype;
 * F32/F16/BF16 convert floating tensors; non-floating tensors (integer buffers) are never
 * converted, since they are copied rather than edited.
 */
import type { CheckpointTensor, Checkpoint } from '../io/checkpoint.ts';
import { isFloatDType } from '../io/dtype.ts';
import type { TensorSpec } from '../io/tensor-encoding.ts';
import type { ExportDtype } from './recipe.ts';

export interface PlannedTensor {
  readonly spec: TensorSpec;
  readonly instruct?: CheckpointTensor;
  readonly thinking?: CheckpointTensor;
}

export function planExport(instruct: Checkpoint, thinking: Checkpoint, dtype: ExportDtype): PlannedTensor[] {
  const names = [...instruct.tensors.keys(), ...[...thinking.tensors.keys()].filter((n) => !instruct.tensors.has(n))];
  return names.map((name) => {
    const i = instruct.tensors.get(name);
    const t = thinking.tensors.get(name);
    const base = (i ?? t) as CheckpointTensor;
    const outDtype = dtype === 'source' || !isFloatDType(base.dtype) ? base.dtype : dtype;
    return { spec: { name, dtype: outDtype, shape: base.shape }, instruct: i, thinking: t };
  });
}
