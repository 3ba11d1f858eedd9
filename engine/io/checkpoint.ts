/**
 * A Hugging Face checkpoint directory: config.json, the weights (model.safetensors or a sharded
 * index) and the tokenizer files. Opening reads only headers; tensors are read one at a time.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import type { RawTensorData } from './dtype.ts';
import { readJsonObject, readTextFile } from './input-file.ts';
import { readShardIndex } from './shard-index.ts';
import { INDEX_FILE_NAME, SINGLE_FILE_NAME } from './shard-plan.ts';
import type { TensorInfo } from './safetensors-header.ts';
import { SafetensorsFile } from './safetensors-reader.ts';

/** Files that travel with the weights: tokenizer, template, generation settings. */
export const TOKENIZER_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'vocab.json',
  'merges.txt',
  'tokenizer.model',
  'chat_template.jinja',
  'chat_template.json',
  'generation_config.json',
] as const;

export interface CheckpointTensor extends TensorInfo {
  /** File name of the shard holding it, relative to the checkpoint directory. */
  readonly shard: string;
  readonly bytes: number;
}

export type ModelConfig = Readonly<Record<string, unknown>>;

export class Checkpoint {
  private constructor(
    readonly dir: string,
    readonly config: ModelConfig,
    readonly tensors: ReadonlyMap<string, CheckpointTensor>,
    readonly shardFiles: readonly string[],
    readonly sideFiles: readonly string[],
    private readonly shards: ReadonlyMap<string, SafetensorsFile>,
  ) {}

  static async open(dir: string): Promise<Checkpoint> {
    const entries = await listDirectory(dir);
    const config = await readConfig(dir, entries);
    const index = entries.includes(INDEX_FILE_NAME) ? await readShardIndex(dir, entries) : undefined;
    // Sorted, so the tensor order does not depend on the order of the index's keys.
    const shardFiles = index !== undefined
      ? [...new Set(index.weightMap.values())].sort()
      : entries.includes(SINGLE_FILE_NAME)
        ? [SINGLE_FILE_NAME]
        : [];
    if (shardFiles.length === 0) {
      throw new CheckpointError('not-found', dir, `no ${SINGLE_FILE_NAME} or ${INDEX_FILE_NAME} in this folder`);
    }
    const shards = new Map<string, SafetensorsFile>();
    try {
      for (const file of shardFiles) shards.set(file, await SafetensorsFile.open(join(dir, file)));
      const tensors = collectTensors(dir, shards);
      if (index !== undefined) checkIndexAgrees(dir, index.weightMap, tensors);
      const sideFiles = TOKENIZER_FILES.filter((f) => entries.includes(f));
      for (const file of sideFiles) await assertRegularFile(join(dir, file));
      return new Checkpoint(dir, config, tensors, shardFiles, sideFiles, shards);
    } catch (error) {
      await Promise.all([...shards.values()].map((s) => s.close()));
      throw error;
    }
  }

  tensor(name: string): CheckpointTensor {
    const tensor = this.tensors.get(name);
    if (tensor === undefined) throw new CheckpointError('not-found', this.dir, 'no such tensor in this checkpoint', name);
    return tensor;
  }

  get totalBytes(): number {
    let total = 0;
    for (const t of this.tensors.values()) total += t.bytes;
    return total;
  }

  /** See SafetensorsFile.readFloat32: `into` is a reusable array at least as long as the tensor. */
  async readFloat32(name: string, into?: Float32Array): Promise<Float32Array> {
    return this.shardOf(name).readFloat32(name, into);
  }

  /** See SafetensorsFile.readRowsFloat32: chosen rows only, [rows.length × row length]. */
  async readRowsFloat32(name: string, rows: ArrayLike<number>): Promise<Float32Array> {
    return this.shardOf(name).readRowsFloat32(name, rows);
  }

  /** See SafetensorsFile.streamRaw: the stored bytes chunk by chunk through one reused buffer. */
  async streamRaw(name: string, scratch: Uint8Array, consume: (chunk: Uint8Array, first: number) => void): Promise<void> {
    return this.shardOf(name).streamRaw(name, scratch, consume);
  }

  async readRaw(name: string): Promise<RawTensorData> {
    return this.shardOf(name).readRaw(name);
  }

  /** Where a tensor's bytes lie: its shard's path and the file offset of its first byte (for readers that batch tensors, export/read-ahead.ts). */
  location(name: string): { readonly path: string; readonly position: number } {
    const shard = this.shardOf(name);
    return { path: shard.path, position: shard.header.dataStart + this.tensor(name).begin };
  }

  async readSideFile(file: string): Promise<string | undefined> {
    if (!this.sideFiles.includes(file)) return undefined;
    return readTextFile(join(this.dir, file));
  }

  async close(): Promise<void> {
    await Promise.all([...this.shards.values()].map((s) => s.close()));
  }

  private shardOf(name: string): SafetensorsFile {
    return this.shards.get(this.tensor(name).shard) as SafetensorsFile;
  }
}

async function listDirectory(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CheckpointError('not-found', dir, 'checkpoint folder not found');
    if (code === 'ENOTDIR') throw new CheckpointError('not-found', dir, 'is not a folder');
    throw new CheckpointError('io', dir, `cannot list the checkpoint folder: ${(error as Error).message}`);
  }
}

async function readConfig(dir: string, entries: readonly string[]): Promise<ModelConfig> {
  const path = join(dir, 'config.json');
  if (!entries.includes('config.json')) throw new CheckpointError('config', path, 'missing (every checkpoint needs its config.json)');
  return readJsonObject(path, 'config');
}

/** A side file that is a folder or a FIFO would fail (or block) only when copied or hashed later. */
async function assertRegularFile(path: string): Promise<void> {
  const stats = await stat(path).catch((error: unknown) => {
    throw new CheckpointError('io', path, `cannot be read: ${(error as Error).message}`);
  });
  if (!stats.isFile()) throw new CheckpointError('not-a-file', path, 'is not a regular file');
}

function collectTensors(dir: string, shards: ReadonlyMap<string, SafetensorsFile>): Map<string, CheckpointTensor> {
  const tensors = new Map<string, CheckpointTensor>();
  for (const [file, shard] of shards) {
    for (const info of shard.tensors.values()) {
      const other = tensors.get(info.name);
      if (other !== undefined) {
        throw new CheckpointError('duplicate', join(dir, file), `is also stored in ${other.shard}`, info.name);
      }
      tensors.set(info.name, { ...info, shard: file, bytes: info.end - info.begin });
    }
  }
  return tensors;
}

function checkIndexAgrees(dir: string, weightMap: ReadonlyMap<string, string>, tensors: ReadonlyMap<string, CheckpointTensor>): void {
  const indexPath = join(dir, INDEX_FILE_NAME);
  for (const [name, file] of weightMap) {
    const tensor = tensors.get(name);
    if (tensor === undefined) throw new CheckpointError('index', indexPath, `maps it to ${file}, which does not contain it`, name);
    if (tensor.shard !== file) throw new CheckpointError('index', indexPath, `maps it to ${file} but it is stored in ${tensor.shard}`, name);
  }
  for (const tensor of tensors.values()) {
    if (!weightMap.has(tensor.name)) {
      throw new CheckpointError('index', indexPath, `is stored in ${tensor.shard} but missing from weight_map`, tensor.name);
    }
  }
}
