import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import type { LayerActivations } from '../model/activations.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import { initBackend } from '../tensor/backend.ts';
import { relativeError } from '../tensor/testing/relative-error.ts';
import { AIM_MAX_TOKENS, aimPrompts, computeAimImportance, readAimImportance, writeAimImportance } from './aim-importance.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';

const chat = (set: CalibrationSequence['set'], split: CalibrationSequence['split'], ids: number[], lossMask?: number[]): CalibrationSequence => ({
  set, split, source: 'test', ids, ...(lossMask === undefined ? {} : { lossMask }),
});

describe('aimPrompts', () => {
  it('D_R and D_A train chats up to their first generated token, cut at 512; held-out and D_F left out', () => {
    const long = Array.from({ length: 600 }, (_, i) => i % 50);
    const prompts = aimPrompts([
      chat('reasoning', 'train', [1, 2, 3, 4, 5], [0, 0, 0, 1, 1]),
      chat('agent', 'train', [6, 7, 8], [0, 0, 0]),
      chat('agent', 'train', long, long.map(() => 0)),
      chat('reasoning', 'heldout', [9, 9], [0, 1]),
      chat('format', 'train', [10, 11]),
      chat('reasoning', 'train', [12, 13], [1, 1]),
    ]);
    expect(prompts.map((p) => p.length)).toEqual([3, 3, AIM_MAX_TOKENS]);
    expect(prompts[0]).toEqual([1, 2, 3]);
    expect(prompts[2]).toEqual(long.slice(0, AIM_MAX_TOKENS));
  });
});

describe('computeAimImportance on a tiny model', () => {
  let dir: string;
  let checkpoint: Checkpoint;
  let model: CausalLM;
  const prompts = [[4, 8, 15, 16, 23, 42, 7], [7, 1, 9]];

  beforeAll(async () => {
    await initBackend('wasm');
    dir = await writeTinyCheckpoint({ family: 'qwen3', seed: 11, layers: 2 });
    checkpoint = await Checkpoint.open(dir);
    model = loadCausalLM(checkpoint);
  });

  afterAll(async () => {
    await checkpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is the mean over prompts of each prompt\'s mean |x|, whatever the batch (checked on captureActivations)', async () => {
    const one = await computeAimImportance(model, prompts, { batch: 1 });
    const both = await computeAimImportance(model, prompts, { batch: 2 });
    expect([...one.keys()]).toHaveLength(7 * model.spec.numLayers);
    const d = model.spec.hiddenSize;
    const perPrompt = new Map<string, Float64Array[]>();
    await model.captureActivations(prompts.map((ids) => ({ ids, positions: ids.map((_, i) => i) })), (a: LayerActivations) => {
      for (const [key, rows] of [[`model.layers.${a.layer}.self_attn.k_proj`, a.attnInput], [`model.layers.${a.layer}.mlp.gate_proj`, a.ffnInput]] as const) {
        const mean = new Float64Array(d);
        const count = rows.length / d;
        for (let r = 0; r < count; r++) for (let j = 0; j < d; j++) mean[j] = (mean[j] as number) + Math.abs(rows[r * d + j] as number) / count;
        perPrompt.set(key, [...(perPrompt.get(key) ?? []), mean]);
      }
    });
    for (const [key, means] of perPrompt) {
      const want = Float64Array.from({ length: d }, (_, j) => means.reduce((s, m) => s + (m[j] as number), 0) / means.length);
      expect(relativeError(one.get(key) as Float64Array, want)).toBeLessThan(1e-5);
      expect(relativeError(both.get(key) as Float64Array, want)).toBeLessThan(1e-5);
    }
  });
});

describe('the AIM importance file', () => {
  let tmp: string;
  beforeAll(async () => { tmp = await mkdtemp(join(tmpdir(), 'aim-file-')); });
  afterAll(async () => { await rm(tmp, { recursive: true, force: true }); });

  it('round-trips F32 vectors, sorted by module, equal values giving equal bytes', async () => {
    const importance = new Map([['model.layers.1.mlp.down_proj', Float64Array.of(0.5, 2)], ['model.layers.0.self_attn.o_proj', Float64Array.of(1, 0.25, 3)]]);
    const [a, b] = [join(tmp, 'a.safetensors'), join(tmp, 'b.safetensors')];
    await writeAimImportance(a, importance);
    await writeAimImportance(b, new Map([...importance].reverse()));
    expect((await readFile(a)).equals(await readFile(b))).toBe(true);
    const read = await readAimImportance(a);
    expect([...read.keys()]).toEqual(['model.layers.0.self_attn.o_proj', 'model.layers.1.mlp.down_proj']);
    expect(Array.from(read.get('model.layers.0.self_attn.o_proj') as Float32Array)).toEqual([1, 0.25, 3]);
  });

  it('refuses a 2-D tensor and a file with no vector, naming the file', async () => {
    const matrix = join(tmp, 'matrix.safetensors');
    await writeSafetensors(matrix, [{ spec: { name: 'model.layers.0.mlp.up_proj', dtype: 'F32', shape: [1, 2] }, data: Float32Array.of(1, 2) }]);
    await expect(readAimImportance(matrix)).rejects.toThrow(/matrix\.safetensors: tensor "model\.layers\.0\.mlp\.up_proj": is not a 1-D/);
    const empty = join(tmp, 'empty.safetensors');
    await writeSafetensors(empty, []);
    await expect(readAimImportance(empty)).rejects.toThrow(/empty\.safetensors: holds no AIM importance vectors/);
  });
});
