/**
 * Reference-run interop on the tiny analysed pair: a studio analysis written in the reference
 * pipeline's formats (phase2_stats.json + format_projectors.pt), imported back, exports weights
 * identical bit for bit to the direct export; the files are what crane_merge.py reads; a plain
 * reference run (float32 σ, no studio extras) imports; broken or mismatched files are refused
 * naming the file.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestTokenizer } from '../calibration/testing/fixture.ts';
import { exportMerge } from '../export/export-checkpoint.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { readTorchFile, writeTorchFile, isTorchTensor } from '../io/torch-file.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { initBackend } from '../tensor/backend.ts';
import { tokenRowsOf } from './edit-method.ts';
import { loadPipelineAnalysis } from './pipeline-folder.ts';
import { exportReferenceRun, importReferenceRun, readReferenceRun } from './reference-run.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';

let project: AnalysedProject;
let settings: ResolvedCraneSettings;
let referenceDir: string;
const files = () => ({ stats: join(referenceDir, 'phase2_stats.json'), projectors: join(referenceDir, 'format_projectors.pt') });

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-reference-run-')));
  settings = { ...defaultResolvedSettings(tokenRowsOf((await loadTestTokenizer()).source.tokenizerJson)), alpha: 0.7 };
  referenceDir = join(project.root, 'reference');
  await exportReferenceRun(project.outDir, referenceDir);
});

afterAll(() => rm(project.root, { recursive: true, force: true }));

/** The weight shards, their index and config.json of an export: what a model loader reads. */
async function modelFiles(dir: string): Promise<Map<string, Buffer>> {
  const index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8')) as { weight_map: Record<string, string> };
  const names = ['model.safetensors.index.json', 'config.json', ...new Set(Object.values(index.weight_map))];
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name))] as const)));
}

async function exportWith(analysisDir: string, outDir: string, crane: ResolvedCraneSettings): Promise<Map<string, Buffer>> {
  const instruct = await Checkpoint.open(project.instruct);
  const thinking = await Checkpoint.open(project.thinking);
  try {
    await exportMerge({ instruct, thinking, method: { method: 'crane', settings: crane }, analysisDir, dtype: 'F32', outDir, maxShardBytes: 4096 });
  } finally {
    await instruct.close();
    await thinking.close();
  }
  return modelFiles(outDir);
}

describe('reference-run round trip', () => {
  it('export-reference → import-reference → an export identical bit for bit to the direct one', async () => {
    const imported = join(project.root, 'imported');
    await importReferenceRun(files(), imported);
    for (const [name, crane] of [['coarse', settings], ['fine', { ...settings, granularity: 'fine' as const, stages: { ...settings.stages, threshold: false } }]] as const) {
      const direct = await exportWith(project.run.resultDir, join(project.root, `direct-${name}`), crane);
      const viaReference = await exportWith(imported, join(project.root, `via-reference-${name}`), crane);
      expect([...viaReference.keys()]).toEqual([...direct.keys()]);
      expect(direct.size).toBeGreaterThan(3);
      for (const [file, bytes] of direct) expect(viaReference.get(file)?.equals(bytes), `${name}: ${file}`).toBe(true);
    }
    // The gate and the projectors both shape the compared export: without either it differs.
    const compared = await modelFiles(join(project.root, 'direct-coarse'));
    for (const stage of ['gate', 'gsp'] as const) {
      const without = await exportWith(project.run.resultDir, join(project.root, `${stage}-off`), { ...settings, stages: { ...settings.stages, [stage]: false } });
      expect([...without].some(([file, bytes]) => !compared.get(file)?.equals(bytes)), stage).toBe(true);
    }
  });

  it('carries every S and projector exactly, and marks the import as having no gradients', async () => {
    const { artifacts } = await loadPipelineAnalysis(project.outDir);
    const back = await readReferenceRun(files());
    expect(back.origin).toBe('reference-run');
    expect(back.gate.reference).toBe(artifacts.gate.reference);
    expect([...back.gate.scores.keys()].sort()).toEqual([...artifacts.gate.scores.keys()].sort());
    for (const [key, score] of artifacts.gate.scores) expect(Object.is(back.gate.scores.get(key)?.scale, score.scale), key).toBe(true);
    expect([...back.projectors.keys()]).toEqual([...artifacts.projectors.keys()]);
    for (const [key, p] of artifacts.projectors) expect(back.projectors.get(key), key).toEqual(p);
    expect(back.coefficients.entries).toHaveLength(0);
  });
});

describe('the reference pipeline formats', () => {
  it('writes what crane_merge.py reads: S by layer and coarse component, V_r d × r and σ as float32', async () => {
    const stats = JSON.parse(await readFile(files().stats, 'utf8')) as Record<string, Record<string, unknown>>;
    const perLayer = stats['per_layer_S_reason'] as Record<string, Record<string, number>>;
    expect(Object.keys(perLayer)).toEqual(['0', '1']);
    expect(perLayer['0']?.['ffn']).toBe(1);
    expect(typeof perLayer['1']?.['attention']).toBe('number');
    expect(stats['metadata']).toEqual({ baseline_component: 'ffn', family: 'dense' });
    expect(Object.keys(stats['per_component_S_reason'] ?? {})).toContain('attention');
    const pt = await readTorchFile(files().projectors);
    const entry = pt instanceof Map ? pt.get('layer_0_ffn_input') : undefined;
    const [vr, sigma] = entry instanceof Map ? [entry.get('V_r'), entry.get('sigma')] : [];
    if (!isTorchTensor(vr) || !isTorchTensor(sigma)) throw new Error('layer_0_ffn_input lacks V_r or sigma tensors');
    expect(vr.dtype).toBe('F32');
    expect(sigma.dtype).toBe('F32');
    expect(vr.shape[0]).toBe(16);
    expect(sigma.shape).toEqual([vr.shape[1]]);
  });

  it('imports a plain reference run (float32 σ, coarse S only) with the reference merge\'s lookups', async () => {
    const dir = join(project.root, 'plain');
    const stats = {
      per_layer_S_reason: { 0: { attention: 0.25, ffn: 1, norm: 0.5 } },
      per_component_S_reason: { attention: 0.375, ffn: 1, norm: 0.75 },
      metadata: { family: 'dense', baseline_component: 'ffn', model_preset: 'qwen3-4b', num_layers: 2 },
    };
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    await writeFile(join(dir, 'phase2_stats.json'), JSON.stringify(stats));
    const sigma = Float32Array.of(3, 0.5);
    const basis = Float32Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? 0.5 : -0.5));
    await writeTorchFile(join(dir, 'format_projectors.pt'), new Map([['layer_0_attn_input', new Map([
      ['V_r', { kind: 'tensor' as const, dtype: 'F32' as const, shape: [4, 2], values: basis }],
      ['sigma', { kind: 'tensor' as const, dtype: 'F32' as const, shape: [2], values: sigma }],
    ])]]));
    const run = await readReferenceRun({ stats: join(dir, 'phase2_stats.json'), projectors: join(dir, 'format_projectors.pt') });
    expect(run.gate.scores.get('attention@0')?.scale).toBe(0.25);
    expect(run.gate.scores.get('attention@*')?.scale).toBe(0.375);
    expect(run.gate.scores.has('attention@1')).toBe(false);
    expect(run.projectors.get('layer_0_attn_input')).toEqual({ dim: 4, rank: 2, basis, sigma: Float64Array.of(3, 0.5) });
  });
});

describe('refusals', () => {
  const write = async (name: string, stats: unknown): Promise<string> => {
    const path = join(project.root, name);
    await writeFile(path, JSON.stringify(stats));
    return path;
  };

  it('refuses an unknown component, a missing baseline, no S at all, naming the stats file', async () => {
    const meta = { baseline_component: 'ffn', family: 'dense' };
    const cases: [unknown, RegExp][] = [
      [{ per_layer_S_reason: { 0: { mlp: 1 } }, metadata: meta }, /component "mlp" is not one of attention/],
      [{ per_component_S_reason: { ffn: 1 }, metadata: {} }, /names neither baseline_component nor family/],
      [{ per_layer_S_reason: {}, metadata: meta }, /has no S values/],
      [{ per_layer_S_reason: { '-1': { ffn: 1 } }, metadata: meta }, /phase2_stats/],
    ];
    for (const [i, [stats, message]] of cases.entries()) {
      const path = await write(`bad-${i}.json`, stats);
      await expect(readReferenceRun({ ...files(), stats: path })).rejects.toThrow(message);
      await expect(readReferenceRun({ ...files(), stats: path })).rejects.toThrow(path);
    }
  });

  it('refuses σ that does not match the stats file\'s exact σ, and an unknown projector key', async () => {
    const stats = JSON.parse(await readFile(files().stats, 'utf8')) as { crane_studio: { sigma: Record<string, number[]> } };
    const first = Object.keys(stats.crane_studio.sigma)[0] as string;
    (stats.crane_studio.sigma[first] as number[])[0] = 1e6;
    const path = await write('other-run.json', stats);
    await expect(readReferenceRun({ ...files(), stats: path })).rejects.toThrow(/different runs/);
    const pt = join(project.root, 'odd.pt');
    await writeTorchFile(pt, new Map([['layer_0_o_proj', new Map()]]));
    await expect(readReferenceRun({ ...files(), projectors: pt })).rejects.toThrow(/layer_0_o_proj/);
  });

  it('never writes into an existing folder unless asked', async () => {
    await expect(importReferenceRun(files(), project.outDir)).rejects.toThrow(/already exists/);
    await expect(importReferenceRun(files(), project.instruct, { overwrite: true })).rejects.toThrow(/not an analysis folder/);
    const imported = join(project.root, 'imported-twice');
    await importReferenceRun(files(), imported);
    await importReferenceRun(files(), imported, { overwrite: true });
    await expect(exportReferenceRun(project.outDir, project.instruct, { overwrite: true })).rejects.toThrow(/not a previous reference export/);
  });
});
