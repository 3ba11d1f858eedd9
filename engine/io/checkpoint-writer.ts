/**
 * Streams a checkpoint to disk: tensor by tensor into byte-budgeted shards with an index,
 * plus any side files (config, tokenizer, recipe), inside an atomically renamed directory.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDirectoryAtomically } from './atomic-directory.ts';
import { CheckpointError } from './checkpoint-error.ts';
import { buildIndex, INDEX_FILE_NAME, planShards, type Shard } from './shard-plan.ts';
import { guardWrite, SafetensorsFileWriter } from './safetensors-writer.ts';
import { byteSize, type TensorPayload, type TensorSpec } from './tensor-encoding.ts';

export const DEFAULT_MAX_SHARD_BYTES = 5 * 1024 ** 3;

export interface CheckpointWriteOptions {
  readonly specs: readonly TensorSpec[];
  /** Produces one tensor's values when the writer reaches it; only that tensor is held. */
  readonly produce: (spec: TensorSpec) => Promise<TensorPayload>;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly maxShardBytes?: number;
  /** Writes config, tokenizer and other side files into the directory under construction. */
  readonly writeSideFiles?: (workDir: string) => Promise<void>;
  readonly onProgress?: (progress: { tensorsDone: number; tensorsTotal: number; bytesDone: number; bytesTotal: number }) => void;
  readonly signal?: AbortSignal;
  readonly overwrite?: boolean;
  /** With overwrite: refuses (throws) an existing folder that is not a previous output. */
  readonly assertReplaceable?: (existing: string) => Promise<void>;
}

export interface CheckpointWriteResult {
  readonly dir: string;
  readonly shards: readonly { file: string; bytes: number; tensors: number }[];
  readonly totalBytes: number;
}

export async function writeCheckpoint(dir: string, options: CheckpointWriteOptions): Promise<CheckpointWriteResult> {
  const shards = planShards(options.specs, options.maxShardBytes ?? DEFAULT_MAX_SHARD_BYTES);
  const bytesTotal = shards.reduce((sum, s) => sum + s.bytes, 0);
  const progress = { tensorsDone: 0, tensorsTotal: options.specs.length, bytesDone: 0, bytesTotal };
  await buildDirectoryAtomically(
    dir,
    async (workDir) => {
      for (const shard of shards) await writeShard(join(workDir, shard.file), shard, options, progress);
      if (shards.length > 1) {
        const indexPath = join(workDir, INDEX_FILE_NAME);
        await guardWrite(indexPath, undefined, () => writeFile(indexPath, `${JSON.stringify(buildIndex(shards), null, 2)}\n`));
      }
      await options.writeSideFiles?.(workDir);
    },
    { overwrite: options.overwrite ?? false, assertReplaceable: options.assertReplaceable },
  );
  return {
    dir,
    shards: shards.map((s) => ({ file: s.file, bytes: s.bytes, tensors: s.specs.length })),
    totalBytes: bytesTotal,
  };
}

async function writeShard(
  path: string,
  shard: Shard,
  options: CheckpointWriteOptions,
  progress: { tensorsDone: number; tensorsTotal: number; bytesDone: number; bytesTotal: number },
): Promise<void> {
  const writer = await SafetensorsFileWriter.create(path, shard.specs, options.metadata);
  try {
    for (const spec of shard.specs) {
      if (options.signal?.aborted === true) throw new CheckpointError('write', path, 'export cancelled');
      const data = await options.produce(spec);
      await writer.write(spec.name, data);
      progress.tensorsDone++;
      progress.bytesDone += byteSize(spec);
      options.onProgress?.({ ...progress });
    }
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.close();
}
