import { createHash } from 'node:crypto';
import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { craneEdit } from '../crane/crane-edit.ts';
import { editPair } from '../crane/tensor-pair.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { encodeHalf } from '../io/half-float.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint, type FixtureTensor } from '../io/testing/fixtures.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { exportMerge } from './export-checkpoint.ts';
import { OFFLOAD_MAX_VALUES } from './parallel-edits.ts';
import type { RecipeMethod } from './recipe.ts';

const settings: ResolvedCraneSettings = { ...defaultResolvedSettings({ think: [3], special: [1] }), alpha: 0.4, stages: { threshold: true, gate: false, gsp: false } };
const crane: RecipeMethod = { method: 'crane', settings };
const HIDDEN = 64;
/** Rows of the embedding / lm_head: one more than a worker takes, so they are edited on the main thread. */
const VOCAB = OFFLOAD_MAX_VALUES / HIDDEN + 1;

interface SideOptions {
  readonly seed: number;
  readonly poison?: string;
  readonly only?: string;
}

/** A Qwen3-MoE-like side: embedding and lm_head past a worker's size, BF16 layers, an F16 and an F32 tensor, a router, an integer buffer. */
function side({ seed, poison, only }: SideOptions): FixtureTensor[] {
  const tensor = (name: string, shape: number[], dtype: 'BF16' | 'F16' | 'F32', offset: number): FixtureTensor => {
    const values = seededFloats(shape.reduce((a, b) => a * b, 1), seed * 1000 + offset);
    if (name === poison) values[7] = Number.POSITIVE_INFINITY;
    return { spec: { name, dtype, shape }, data: dtype === 'F32' ? values : encodeHalf(dtype, values) };
  };
  const layers = Array.from({ length: 3 }, (_, l) => [
    tensor(`model.layers.${l}.self_attn.q_proj.weight`, [HIDDEN, HIDDEN], 'BF16', 10 * l + 1),
    tensor(`model.layers.${l}.self_attn.o_proj.weight`, [HIDDEN, HIDDEN], l === 1 ? 'F16' : 'BF16', 10 * l + 2),
    tensor(`model.layers.${l}.mlp.gate.weight`, [8, HIDDEN], 'BF16', 10 * l + 3),
    tensor(`model.layers.${l}.mlp.experts.0.down_proj.weight`, [HIDDEN, 3 * HIDDEN], 'BF16', 10 * l + 4),
    tensor(`model.layers.${l}.input_layernorm.weight`, [HIDDEN], 'F32', 10 * l + 5),
  ]).flat();
  return [
    tensor('lm_head.weight', [VOCAB, HIDDEN], 'BF16', 100),
    tensor('model.embed_tokens.weight', [VOCAB, HIDDEN], 'BF16', 101),
    ...layers,
    { spec: { name: 'model.position_ids', dtype: 'I32', shape: [3] }, data: Int32Array.of(0, 1, 2) },
    ...(only === undefined ? [] : [tensor(only, [5], 'BF16', 102)]),
  ];
}

async function writePair(root: string, poison?: string): Promise<{ instruct: string; thinking: string }> {
  const options = { maxShardBytes: 4 * 1024 ** 2 };
  return {
    instruct: await writeFixtureCheckpoint(join(root, 'instruct'), side({ seed: 1, only: 'model.extra_instruct' }), options),
    thinking: await writeFixtureCheckpoint(join(root, 'thinking'), side({ seed: 2, ...(poison === undefined ? {} : { poison }) }), options),
  };
}

async function exported(paths: { instruct: string; thinking: string }, outDir: string, editWorkers: number, method: RecipeMethod = crane): Promise<void> {
  const [instruct, thinking] = [await Checkpoint.open(paths.instruct), await Checkpoint.open(paths.thinking)];
  try {
    await exportMerge({ instruct, thinking, method, dtype: 'source', maxShardBytes: 4 * 1024 ** 2, outDir, editWorkers });
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

function bytesOf(values: ArrayBufferView): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex')] as const)));
}

describe('ParallelEdits (through exportMerge)', () => {
  it('writes the same bytes with 0, 1 and 2 edit workers, each tensor the in-memory edit', () => withTempDir(async (root) => {
    const paths = await writePair(root);
    for (const workers of [0, 1, 2]) await exported(paths, join(root, `out${workers}`), workers);
    const single = await fileHashes(join(root, 'out0'));
    expect(Object.keys(single).filter((f) => f.endsWith('.safetensors')).length).toBeGreaterThan(2);
    expect(await fileHashes(join(root, 'out1'))).toEqual(single);
    expect(await fileHashes(join(root, 'out2'))).toEqual(single);

    const [instruct, thinking, out] = [await Checkpoint.open(paths.instruct), await Checkpoint.open(paths.thinking), await Checkpoint.open(join(root, 'out2'))];
    try {
      const edit = craneEdit(settings, { gate: null, projector: () => undefined });
      for (const [name, info] of out.tensors) {
        if (info.dtype === 'I32') continue;
        const i = { shape: info.shape, values: await instruct.readFloat32(name) };
        const t = thinking.tensors.has(name) ? { shape: info.shape, values: await thinking.readFloat32(name) } : undefined;
        const expected = editPair({ name, instruct: i, ...(t === undefined ? {} : { thinking: t }) }, edit).values;
        const encoded = info.dtype === 'F32' ? expected : encodeHalf(info.dtype as 'BF16' | 'F16', expected);
        // Bytes compared as one Buffer: element-wise toEqual takes minutes on the 4 M-value tensors.
        expect(bytesOf(await out.readRaw(name)).equals(bytesOf(encoded)), name).toBe(true);
      }
      expect(out.tensor('model.layers.1.self_attn.o_proj.weight').dtype).toBe('F16');
    } finally {
      await Promise.all([instruct.close(), thinking.close(), out.close()]);
    }
    const card = await readFile(join(root, 'out2', 'README.md'), 'utf8');
    expect(card).toContain('model.extra_instruct');
    expect(card).toContain('model.position_ids');
  }));

  it('writes the same bytes with and without workers for task arithmetic', () => withTempDir(async (root) => {
    const paths = await writePair(root);
    const method: RecipeMethod = { method: 'task_arithmetic', lambda: 0.3 };
    await exported(paths, join(root, 'single'), 0, method);
    await exported(paths, join(root, 'parallel'), 2, method);
    expect(await fileHashes(join(root, 'parallel'))).toEqual(await fileHashes(join(root, 'single')));
  }));

  it('refuses a non-finite value in a tensor a worker edits, naming file and tensor, and writes nothing', () => withTempDir(async (root) => {
    const poisoned = 'model.layers.2.mlp.experts.0.down_proj.weight';
    const paths = await writePair(root, poisoned);
    const thinking = await Checkpoint.open(paths.thinking);
    const file = thinking.location(poisoned).path;
    await thinking.close();
    const error = await exported(paths, join(root, 'out'), 2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect(error).toMatchObject({ code: 'non-finite', tensor: poisoned, file });
    expect((error as Error).message).toMatch(/Infinity at flat index 7/);
    await expect(access(join(root, 'out'))).rejects.toThrow();
  }));
});
