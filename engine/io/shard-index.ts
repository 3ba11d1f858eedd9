/** Reading and validating model.safetensors.index.json. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { INDEX_FILE_NAME, type ShardIndex } from './shard-plan.ts';

/** Shard names must be plain file names in the checkpoint folder: no paths, no traversal. */
const SHARD_NAME = /^[\w.-]+\.safetensors$/;

export async function readShardIndex(dir: string, entries: readonly string[]): Promise<ShardIndex> {
  const path = join(dir, INDEX_FILE_NAME);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CheckpointError('index', path, `is not valid JSON (${(error as Error).message})`);
  }
  const weightMap = (json as { weight_map?: unknown } | null)?.weight_map;
  if (typeof weightMap !== 'object' || weightMap === null || Array.isArray(weightMap)) {
    throw new CheckpointError('index', path, 'has no weight_map object');
  }
  for (const [name, file] of Object.entries(weightMap)) {
    if (typeof file !== 'string' || !SHARD_NAME.test(file) || file.startsWith('.')) {
      throw new CheckpointError('index', path, `maps it to ${JSON.stringify(file)}, not a shard file name`, name);
    }
    if (!entries.includes(file)) throw new CheckpointError('index', path, `names shard ${file}, which is missing`, name);
  }
  const totalSize = (json as { metadata?: { total_size?: unknown } }).metadata?.total_size;
  return { metadata: { total_size: typeof totalSize === 'number' ? totalSize : Number.NaN }, weight_map: weightMap as Record<string, string> };
}
