/**
 * A Hugging Face checkpoint directory: config.json, the weights (model.safetensors or a sharded
 * index) and the tokenizer files. Opening reads only headers; tensors are read one at a time.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import type { RawTensorData } from './dtype.ts';
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
    const shardFiles = index !== undefined
      ? [...new Set(Object.values(index.weight_map))]
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
      if (index !== undefined) checkIndexAgrees(dir, index.weight_map, tensors);
      const sideFiles = TOKENIZER_FILES.filter((f) => entries.includes(f));
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

  async readFloat32(name: string): Promise<Float32Array> {
    return this.shardOf(name).readFloat32(name);
  }

  async readRaw(name: string): Promise<RawTensorData> {
    return this.shardOf(name).readRaw(name);
  }

  async readSideFile(file: string): Promise<string | undefined> {
    if (!this.sideFiles.includes(file)) return undefined;
    return readFile(join(this.dir, file), 'utf8');
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
    throw new CheckpointError('not-found', dir, code === 'ENOTDIR' ? 'is not a folder' : 'checkpoint folder not found');
  }
}

async function readConfig(dir: string, entries: readonly string[]): Promise<ModelConfig> {
  const path = join(dir, 'config.json');
  if (!entries.includes('config.json')) throw new CheckpointError('config', path, 'missing (every checkpoint needs its config.json)');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CheckpointError('config', path, `is not valid JSON (${(error as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new CheckpointError('config', path, 'is not a JSON object');
  return json as ModelConfig;
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

function checkIndexAgrees(dir: string, weightMap: Readonly<Record<string, string>>, tensors: ReadonlyMap<string, CheckpointTensor>): void {
  const indexPath = join(dir, INDEX_FILE_NAME);
  for (const [name, file] of Object.entries(weightMap)) {
    const tensor = tensors.get(name);
    if (tensor === undefined) throw new CheckpointError('index', indexPath, `maps it to ${file}, which does not contain it`, name);
    if (tensor.shard !== file) throw new CheckpointError('index', indexPath, `maps it to ${file} but it is stored in ${tensor.shard}`, name);
  }
  for (const tensor of tensors.values()) {
    if (!Object.hasOwn(weightMap, tensor.name)) {
      throw new CheckpointError('index', indexPath, `is stored in ${tensor.shard} but missing from weight_map`, tensor.name);
    }
  }
}
