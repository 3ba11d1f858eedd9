/**
 * RAIN from the UI, through the engine handlers on the tiny RAIN triple: with the project's Base
 * and the two calibration files set as RAIN's parameters, Verify measures the merge and Export
 * writes it onto Thinking, its recipe hashing the files instead of naming their paths; without
 * them, both say what is missing and nothing is written.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECIPE_FILE } from '../export/recipe.ts';
import { writeRainTriple, type RainTriple } from '../pipeline/testing/rain-triple.ts';
import { DEFAULT_BASELINES } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harnessOn, type Harness } from './testing/handler-harness.ts';

let h: Harness & RainTriple;
const rain = () => ({ ...DEFAULT_BASELINES.rain, radius: 2, layersTail: 2, qpMaxTokens: 48, reasoningFile: h.reasoning, instructionsFile: h.instructions });
const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');

beforeAll(async () => {
  await initBackend('wasm');
  const root = await mkdtemp(join(tmpdir(), 'crane-rain-handlers-'));
  h = await harnessOn(root, await writeRainTriple(root));
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking, base: h.base });
  const projectDir = (await call(h, 'getProjectState', {}))?.projectDir as string;
  await call(h, 'analyze', { projectDir, settings: h.settings.analysis });
}, 180_000);

afterAll(async () => {
  if (h !== undefined) await rm(h.root, { recursive: true, force: true });
});

describe('RAIN through the handlers', () => {
  it('Verify measures the RAIN merge from the project\'s Base and the calibration files of its parameters', async () => {
    const result = await call(h, 'verify', { method: rain() });
    expect(result.method.method).toBe('rain');
    expect(result.edited.reasoning).not.toBe(result.base.reasoning);
    expect(Number.isFinite(result.edited.agent)).toBe(true);
  }, 180_000);

  it('Export writes it onto Thinking; the recipe hashes the Base and both files and names no path', async () => {
    const outDir = join(h.root, 'export-rain');
    const summary = await call(h, 'export', { outDir, dtype: 'source', shardBytes: 1 << 20, method: rain(), overwrite: false });
    expect(summary.files).toContain(RECIPE_FILE);
    const text = await readFile(join(outDir, RECIPE_FILE), 'utf8');
    const recipe = JSON.parse(text) as { method: Record<string, unknown>; inputs: Record<'base' | 'instruct', { files: Record<string, string> }> & { rainCalibration: unknown } };
    expect(recipe.method).toEqual({ ...DEFAULT_BASELINES.rain, radius: 2, layersTail: 2, qpMaxTokens: 48 });
    expect(recipe.inputs.rainCalibration).toEqual({ reasoning: await sha256(h.reasoning), instructions: await sha256(h.instructions) });
    const weights = (files: Record<string, string>) => Object.entries(files).find(([name]) => name.endsWith('.safetensors'))?.[1];
    expect(recipe.inputs.base.files['model.safetensors'] ?? weights(recipe.inputs.base.files)).toMatch(/^[0-9a-f]{64}$/);
    expect(weights(recipe.inputs.base.files)).not.toBe(weights(recipe.inputs.instruct.files));
    expect(text).not.toContain(h.reasoning);
  }, 180_000);

  it('says which calibration file is missing, and which Base, writing nothing', async () => {
    await expect(call(h, 'verify', { method: { ...rain(), reasoningFile: undefined } })).rejects.toThrow("RAIN needs its reasoning file (RAIN's 'reasoning file' parameter)");
    await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
    const outDir = join(h.root, 'never');
    await expect(call(h, 'export', { outDir, dtype: 'source', shardBytes: 1 << 20, method: rain(), overwrite: false }))
      .rejects.toThrow("RAIN needs a Base checkpoint (the project's Base, given when the pair is opened)");
    expect(await readdir(h.root)).not.toContain('never');
  });
});
