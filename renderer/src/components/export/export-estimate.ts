/**
 * What an export will write, estimated before it runs from Instruct's tensor list
 * (inspectCheckpoint): the weights' size in the chosen dtype and the number of shards. The
 * exporter's rules, restated for the estimate: floating tensors (F32, F16, BF16) take the chosen
 * dtype, others keep theirs (they are copied); shards are filled greedily in tensor order, a
 * shard closing when the next tensor would pass the budget (engine/io/shard-plan.ts). Tensors
 * only Thinking has are not in the list, so it is an estimate.
 */
import type { ExportDtype } from '../../protocol.ts';

export interface TensorSize {
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly bytes: number;
}

const FLOAT_BYTES: Readonly<Record<string, number>> = { F32: 4, F16: 2, BF16: 2 };

/** One tensor's bytes once written in `dtype`. */
export function exportedBytes(tensor: TensorSize, dtype: ExportDtype): number {
  if (dtype === 'source' || FLOAT_BYTES[tensor.dtype] === undefined) return tensor.bytes;
  return tensor.shape.reduce((a, b) => a * b, 1) * (FLOAT_BYTES[dtype] ?? 0);
}

export function estimateExport(tensors: readonly TensorSize[], dtype: ExportDtype, shardBytes: number): { bytes: number; shards: number } {
  let bytes = 0;
  let shards = 1;
  let current = 0;
  let inShard = 0;
  for (const tensor of tensors) {
    const size = exportedBytes(tensor, dtype);
    if (inShard > 0 && current + size > shardBytes) {
      shards++;
      current = 0;
      inShard = 0;
    }
    current += size;
    inShard++;
    bytes += size;
  }
  return { bytes, shards };
}
