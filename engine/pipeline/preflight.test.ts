/** Pairs that cannot be analysed end with a clear error before anything is written. */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { initBackend } from '../tensor/backend.ts';
import { runAnalysis } from './run-analysis.ts';
import { writeTinyProject } from './testing/tiny-project.ts';

beforeAll(async () => {
  await initBackend('wasm');
});

/** Rewrites one tensor of a checkpoint with a NaN at index 3. */
async function poison(dir: string, name: string): Promise<void> {
  const checkpoint = await Checkpoint.open(dir);
  const tensors = [];
  for (const t of checkpoint.tensors.values()) {
    const data = await checkpoint.readFloat32(t.name);
    if (t.name === name) data[3] = Number.NaN;
    tensors.push({ spec: { name: t.name, dtype: 'F32' as const, shape: t.shape }, data });
  }
  await checkpoint.close();
  await rm(join(dir, 'model.safetensors'));
  await writeSafetensors(join(dir, 'model.safetensors'), tensors);
}

describe('analysis preflight', () => {
  it('refuses a pair of different hidden sizes, naming the difference, and writes nothing', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root, { thinkingModel: { hidden: 32, intermediate: 24, headDim: 4 } });
    const error = await runAnalysis({ ...project, outDir: join(root, 'analysis') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toMatch(/cannot be paired with .*instruct[\s\S]*"hidden_size" differs: Instruct 16, Thinking 32/);
    expect(await readdir(root)).not.toContain('analysis');
  }));

  it('refuses NaN weights, naming file and tensor, and writes nothing', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    await poison(project.thinking, 'model.layers.1.mlp.up_proj.weight');
    const error = await runAnalysis({ ...project, outDir: join(root, 'analysis') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'non-finite', tensor: 'model.layers.1.mlp.up_proj.weight', file: join(project.thinking, 'model.safetensors') });
    expect((error as Error).message).toMatch(/NaN at flat index 3; nothing was analysed/);
    expect(await readdir(root)).not.toContain('analysis');
  }));
});
