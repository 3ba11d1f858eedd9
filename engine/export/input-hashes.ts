/**
 * SHA-256 of every file an export reads, for the recipe, and the check that a recipe's inputs
 * are the files at hand.
 *
 *   checkpointFiles(checkpoint) → file names the checkpoint is made of (config, index, shards, side files)
 *   hashFiles(dir, files, progress) → { file: sha256 }
 *   assertSameHashes(dir, expected, actual, what)   CheckpointError naming the first differing file
 *
 * Hashing is streamed (shards exceed RAM) and reports bytes as it goes: at 60 GB it is minutes.
 */
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256File } from '../analysis/provenance.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { INDEX_FILE_NAME } from '../io/shard-plan.ts';

export interface HashProgress {
  readonly file: string;
  readonly bytesDone: number;
  readonly bytesTotal: number;
}

export async function checkpointFiles(checkpoint: Checkpoint): Promise<string[]> {
  const hasIndex = await access(join(checkpoint.dir, INDEX_FILE_NAME)).then(() => true, () => false);
  return ['config.json', ...(hasIndex ? [INDEX_FILE_NAME] : []), ...checkpoint.shardFiles, ...checkpoint.sideFiles];
}

export async function hashFiles(
  dir: string,
  files: readonly string[],
  options: { signal?: AbortSignal; onProgress?: (p: HashProgress) => void } = {},
): Promise<Record<string, string>> {
  const sizes = await Promise.all(files.map(async (f) => {
    const stats = await stat(join(dir, f)).catch(() => { throw new CheckpointError('not-found', join(dir, f), 'input file not found'); });
    // Hashing reads to the end: a FIFO would block it forever, a folder fail without a name.
    if (!stats.isFile()) throw new CheckpointError('not-a-file', join(dir, f), 'is not a regular file');
    return stats.size;
  }));
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  const hashes: Record<string, string> = {};
  let bytesDone = 0;
  for (const [i, file] of files.entries()) {
    hashes[file] = await sha256File(join(dir, file), options.signal);
    bytesDone += sizes[i] as number;
    options.onProgress?.({ file, bytesDone, bytesTotal });
  }
  return hashes;
}

export function assertSameHashes(dir: string, expected: Readonly<Record<string, string>>, actual: Readonly<Record<string, string>>, what: string): void {
  for (const file of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const [want, have] = [expected[file], actual[file]];
    if (want === have) continue;
    const detail = want === undefined ? `is not in the recipe's ${what} files`
      : have === undefined ? `is listed in the recipe's ${what} files but absent here`
        : `SHA-256 ${have} differs from the recipe's ${want} (${what})`;
    throw new CheckpointError('metadata', join(dir, file), detail);
  }
}
