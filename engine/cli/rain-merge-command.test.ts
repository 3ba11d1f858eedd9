/**
 * `crane merge --method rain --base B` and `crane verify --method rain --base B` on a tiny
 * Base/Instruct/Thinking triple: the export is Thinking with exactly the pipeline's RAIN tensors,
 * its recipe hashes all three checkpoints and both calibration files; a missing or mismatched
 * Base, missing calibration files and RAIN flags with another method are refused by name.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { runAnalysis } from '../pipeline/run-analysis.ts';
import { runRainMerge } from '../pipeline/rain-merge.ts';
import { rainTensorName } from '../pipeline/rain-projections.ts';
import { writeRainTriple, type RainTriple } from '../pipeline/testing/rain-triple.ts';
import { DEFAULT_BASELINES } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { runCli } from './testing.ts';

let root: string;
let triple: RainTriple;
let exported: string;
const RAIN_ARGS = ['--layers-tail', '1', '--think-radius', '2', '--qp-max-tokens', '40'];
const rainFiles = () => ['--rain-reasoning', triple.reasoning, '--rain-instructions', triple.instructions];

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-rain-cli-'));
  triple = await writeRainTriple(root);
  exported = join(root, 'rain-export');
  const merged = await runCli(['merge', triple.instruct, triple.thinking, '--out', exported, '--method', 'rain', '--base', triple.base, ...rainFiles(), ...RAIN_ARGS]);
  expect(merged.code, merged.err).toBe(0);
});

afterAll(() => rm(root, { recursive: true, force: true }));

const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

describe('crane merge --method rain', () => {
  it('writes Thinking with the pipeline\'s RAIN tensors in the last layer and Thinking\'s own elsewhere', async () => {
    const [out, base, instruct, thinking] = await Promise.all([exported, triple.base, triple.instruct, triple.thinking].map((d) => Checkpoint.open(d)));
    try {
      const settings = { ...DEFAULT_BASELINES.rain, layersTail: 1, radius: 2, qpMaxTokens: 40 };
      const merge = await runRainMerge({ base: base as Checkpoint, instruct: instruct as Checkpoint, thinking: thinking as Checkpoint, calibration: { reasoning: triple.reasoning, instructions: triple.instructions }, settings });
      expect(merge.layers).toEqual([1]);
      for (const name of (out as Checkpoint).tensors.keys()) {
        const expected = merge.tensors.get(name) ?? await (thinking as Checkpoint).readFloat32(name);
        expect(Array.from(await (out as Checkpoint).readFloat32(name)), name).toEqual(Array.from(expected));
      }
      const q = rainTensorName(1, 'q');
      expect(Array.from(merge.tensors.get(q) ?? [])).not.toEqual(Array.from(await (thinking as Checkpoint).readFloat32(q)));
    } finally {
      for (const c of [out, base, instruct, thinking]) await c?.close();
    }
  });

  it('records the hashes of Base, Instruct, Thinking and both calibration files, and α in the model card', async () => {
    const recipe = JSON.parse(await readFile(join(exported, 'crane_recipe.json'), 'utf8')) as {
      method: { method: string; layersTail: number }; inputs: Record<string, { files: Record<string, string> } | { reasoning: string; instructions: string }>;
    };
    expect(recipe.method).toMatchObject({ method: 'rain', layersTail: 1, radius: 2 });
    const baseFiles = (recipe.inputs['base'] as { files: Record<string, string> }).files;
    expect(Object.keys(baseFiles).sort()).toEqual((await readdir(triple.base)).sort());
    for (const [file, hash] of Object.entries(baseFiles)) expect(hash, file).toBe(await sha256(join(triple.base, file)));
    expect(recipe.inputs['rainCalibration']).toEqual({ reasoning: await sha256(triple.reasoning), instructions: await sha256(triple.instructions) });
    expect(await readFile(join(exported, 'README.md'), 'utf8')).toMatch(/RAIN α of layer 1, heads 0…3: /);
    // Thinking's tokenizer and config, byte for byte
    expect(await sha256(join(exported, 'tokenizer.json'))).toBe(await sha256(join(triple.thinking, 'tokenizer.json')));
    const again = await runCli(['merge', '--recipe', join(exported, 'crane_recipe.json'), triple.instruct, triple.thinking, '--out', join(root, 'again')]);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/is a RAIN recipe: --recipe does not rebuild RAIN yet/);
  });

  it('refuses RAIN without --base or its files, and --base with another method', async () => {
    const out = join(root, 'never');
    const noBase = await runCli(['merge', triple.instruct, triple.thinking, '--out', out, '--method', 'rain', ...rainFiles()]);
    expect([noBase.code, noBase.err]).toEqual([2, expect.stringContaining('RAIN needs a Base checkpoint: pass --base')]);
    const noFiles = await runCli(['merge', triple.instruct, triple.thinking, '--out', out, '--method', 'rain', '--base', triple.base]);
    expect([noFiles.code, noFiles.err]).toEqual([2, expect.stringContaining('--method rain needs --rain-reasoning F and --rain-instructions F')]);
    const stray = await runCli(['merge', triple.instruct, triple.thinking, '--out', out, '--method', 'ties', '--base', triple.base]);
    expect([stray.code, stray.err]).toEqual([2, expect.stringContaining('--base go with --method rain')]);
    await expect(readdir(out)).rejects.toThrow();
  });

  it('refuses a Base that lacks a tensor of the pair, naming the tensor, and writes nothing', async () => {
    const partial = join(root, 'partial-base');
    await mkdir(partial);
    const source = await Checkpoint.open(triple.base);
    const dropped = rainTensorName(0, 'k');
    try {
      const kept = [...source.tensors.values()].filter((t) => t.name !== dropped);
      await writeSafetensors(join(partial, 'model.safetensors'), await Promise.all(kept.map(async (t) => ({ spec: { name: t.name, dtype: 'F32' as const, shape: t.shape }, data: await source.readFloat32(t.name) }))));
      await writeFile(join(partial, 'config.json'), JSON.stringify(source.config));
    } finally {
      await source.close();
    }
    const out = join(root, 'never-partial');
    const refused = await runCli(['merge', triple.instruct, triple.thinking, '--out', out, '--method', 'rain', '--base', partial, ...rainFiles(), ...RAIN_ARGS]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(dropped);
    await expect(readdir(out)).rejects.toThrow();
  });
});

describe('crane verify --method rain', () => {
  it('measures L_R and L_A of the RAIN merge on the analysis\' evaluation set', async () => {
    const analysis = join(root, 'analysis');
    await runAnalysis({ ...triple, outDir: analysis });
    const verified = await runCli(['verify', analysis, '--method', 'rain', '--base', triple.base, ...rainFiles(), ...RAIN_ARGS, '--json']);
    expect(verified.code, verified.err).toBe(0);
    const result = JSON.parse(verified.out) as { method: string; edited: { reasoning: number; agent: number }; base: { reasoning: number }; predicted: unknown };
    expect(result.method).toBe('rain');
    expect(result.predicted).toBeNull();
    expect(Number.isFinite(result.edited.reasoning) && Number.isFinite(result.edited.agent)).toBe(true);
    expect(result.edited.reasoning).not.toBe(result.base.reasoning);
    const noBase = await runCli(['verify', analysis, '--method', 'rain', ...rainFiles()]);
    expect([noBase.code, noBase.err]).toEqual([2, expect.stringContaining('RAIN needs a Base checkpoint: pass --base')]);
  });
});
