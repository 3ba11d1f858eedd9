/**
 * The one finiteness check on tensor values: the first NaN or ±Inf is a CheckpointError naming the
 * file, the tensor and the flat index. Used where weights are read before analysis or scoring
 * (model/finite-weights.ts) and on both sides and the result of every exported tensor
 * (export/edited-tensor.ts).
 *
 *   assertFiniteValues(values, file, tensor, what)   what: "contains", "was edited into"…
 */
import { CheckpointError } from './checkpoint-error.ts';

export function assertFiniteValues(values: Float32Array, file: string, tensor: string, what: string, outcome: string): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) throw new CheckpointError('non-finite', file, `${what} ${v} at flat index ${i}; ${outcome}`, tensor);
  }
}
