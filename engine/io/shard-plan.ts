/** Splitting an ordered tensor list into Hugging Face-style shards by a byte budget. */
import { byteSize, type TensorSpec } from './tensor-encoding.ts';

export const SINGLE_FILE_NAME = 'model.safetensors';
export const INDEX_FILE_NAME = 'model.safetensors.index.json';

export interface Shard {
  readonly file: string;
  readonly specs: readonly TensorSpec[];
  readonly bytes: number;
}

/** `model-00001-of-00003.safetensors`, as transformers names them. */
export function shardFileName(index: number, count: number): string {
  const pad = (n: number) => String(n).padStart(5, '0');
  return `model-${pad(index + 1)}-of-${pad(count)}.safetensors`;
}

/**
 * Greedy in tensor order: a shard is closed when the next tensor would push it past the budget.
 * A tensor larger than the budget gets a shard of its own. One shard is written as
 * model.safetensors (no index), like save_pretrained does.
 */
export function planShards(specs: readonly TensorSpec[], maxShardBytes: number): Shard[] {
  if (!(maxShardBytes > 0)) throw new RangeError(`shard size must be positive, got ${maxShardBytes}`);
  const groups: TensorSpec[][] = [];
  let current: TensorSpec[] = [];
  let currentBytes = 0;
  for (const spec of specs) {
    const size = byteSize(spec);
    if (current.length > 0 && currentBytes + size > maxShardBytes) {
      groups.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(spec);
    currentBytes += size;
  }
  if (current.length > 0 || groups.length === 0) groups.push(current);
  return groups.map((group, i) => ({
    file: groups.length === 1 ? SINGLE_FILE_NAME : shardFileName(i, groups.length),
    specs: group,
    bytes: group.reduce((sum, spec) => sum + byteSize(spec), 0),
  }));
}

export interface ShardIndex {
  metadata: { total_size: number };
  weight_map: Record<string, string>;
}

/** Object.fromEntries defines own keys, so a tensor named "__proto__" stays in the weight map. */
export function buildIndex(shards: readonly Shard[]): ShardIndex {
  const weightMap = Object.fromEntries(shards.flatMap((shard) => shard.specs.map((spec) => [spec.name, shard.file] as const)));
  return { metadata: { total_size: shards.reduce((sum, s) => sum + s.bytes, 0) }, weight_map: weightMap };
}
