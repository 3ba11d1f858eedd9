/** Test fixtures for checkpoint I/O: temp folders, hand-made safetensors bytes, small checkpoints. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCheckpoint } from '../checkpoint-writer.ts';
import type { TensorPayload, TensorSpec } from '../tensor-encoding.ts';

export async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'crane-test-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A safetensors file from a header (object, raw text or raw bytes) and data bytes, with an optional lying length prefix. */
export function rawSafetensors(header: unknown, data: Uint8Array = new Uint8Array(0), lengthPrefix?: bigint): Buffer {
  const json = Buffer.isBuffer(header) ? header : Buffer.from(typeof header === 'string' ? header : JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(lengthPrefix ?? BigInt(json.length));
  return Buffer.concat([prefix, json, data]);
}

export interface FixtureTensor {
  readonly spec: TensorSpec;
  readonly data: TensorPayload;
}

/** Deterministic pseudo-random floats in [-1, 1) (xorshift32), so fixtures are reproducible. */
export function seededFloats(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = ((state >>> 0) / 2 ** 32) * 2 - 1;
  }
  return out;
}

export function f32Tensor(name: string, shape: readonly number[], seed: number): FixtureTensor {
  const count = shape.reduce((a, b) => a * b, 1);
  return { spec: { name, dtype: 'F32', shape }, data: seededFloats(count, seed) };
}

/** A checkpoint folder (config.json, weights, optional side files) written with the project's writer. */
export async function writeFixtureCheckpoint(
  dir: string,
  tensors: readonly FixtureTensor[],
  options: { config?: Record<string, unknown>; maxShardBytes?: number; sideFiles?: Record<string, string> } = {},
): Promise<string> {
  const byName = new Map(tensors.map((t) => [t.spec.name, t.data]));
  await mkdir(join(dir, '..'), { recursive: true });
  await writeCheckpoint(dir, {
    specs: tensors.map((t) => t.spec),
    produce: async (spec) => byName.get(spec.name) as TensorPayload,
    ...(options.maxShardBytes === undefined ? {} : { maxShardBytes: options.maxShardBytes }),
    writeSideFiles: async (workDir) => {
      await writeFile(join(workDir, 'config.json'), JSON.stringify(options.config ?? { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'] }));
      for (const [file, text] of Object.entries(options.sideFiles ?? {})) await writeFile(join(workDir, file), text);
    },
  });
  return dir;
}
