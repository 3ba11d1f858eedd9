/** Reading and validating model.safetensors.index.json. */
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { readJsonObject } from './input-file.ts';
import { INDEX_FILE_NAME } from './shard-plan.ts';

/** Shard names must be plain file names in the checkpoint folder: no paths, no traversal. */
const SHARD_NAME = /^[\w.-]+\.safetensors$/;

export interface ShardIndexFile {
  /** Tensor name → shard file. A Map, so tensors named "__proto__" or "constructor" are plain keys. */
  readonly weightMap: ReadonlyMap<string, string>;
}

export async function readShardIndex(dir: string, entries: readonly string[]): Promise<ShardIndexFile> {
  const path = join(dir, INDEX_FILE_NAME);
  const json = await readJsonObject(path, 'index');
  const weightMap = json['weight_map'];
  if (typeof weightMap !== 'object' || weightMap === null || Array.isArray(weightMap)) {
    throw new CheckpointError('index', path, 'has no weight_map object');
  }
  const map = new Map<string, string>();
  for (const [name, file] of Object.entries(weightMap)) {
    if (typeof file !== 'string' || !SHARD_NAME.test(file) || file.startsWith('.')) {
      throw new CheckpointError('index', path, `maps it to ${JSON.stringify(file)}, not a shard file name`, name);
    }
    if (!entries.includes(file)) throw new CheckpointError('index', path, `names shard ${file}, which is missing`, name);
    map.set(name, file);
  }
  if (map.size === 0) throw new CheckpointError('index', path, 'weight_map lists no tensors');
  return { weightMap: map };
}
