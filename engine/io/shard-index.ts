/** Reading and validating model.safetensors.index.json. */
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { readJsonObject } from './input-file.ts';
import { INDEX_FILE_NAME, SINGLE_FILE_NAME } from './shard-plan.ts';

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
  const orphan = unindexedSiblingShard(new Set(map.values()), entries);
  if (orphan !== undefined) throw new CheckpointError('index', path, `names no tensor of ${orphan}, a shard of the same set in this folder (its tensors would be ignored)`);
  if (entries.includes(SINGLE_FILE_NAME) && ![...map.values()].includes(SINGLE_FILE_NAME)) {
    // transformers loads model.safetensors when it exists and never reads the index: which weights are meant is unclear.
    throw new CheckpointError('index', path, `names other shards, but the folder also has ${SINGLE_FILE_NAME} (which transformers would load instead); remove whichever is stale`);
  }
  return { weightMap: map };
}

/**
 * A `PREFIX-0000k-of-0000n.safetensors` file in the folder that belongs to a set the index uses
 * but that the index never names: an index that lost entries, not a file to ignore silently.
 */
function unindexedSiblingShard(indexed: ReadonlySet<string>, entries: readonly string[]): string | undefined {
  const sets = new Set([...indexed].map(shardSetOf));
  return entries.find((file) => !indexed.has(file) && shardSetOf(file) !== undefined && sets.has(shardSetOf(file)));
}

/** `model-00002-of-00003.safetensors` → `model-|-of-00003.safetensors`, the set it belongs to. */
function shardSetOf(file: string): string | undefined {
  const match = /^(.+-)\d{5}(-of-\d{5}\.safetensors)$/.exec(file);
  return match === null ? undefined : `${match[1]}|${match[2]}`;
}
