/**
 * One tiny Qwen3-MoE pair saved in both expert layouts (per expert, and transformers v5's fused
 * 3-D tensors) and analysed twice: the same S per expert, the same layer × expert metrics, the
 * same preview entries, and — in fine mode, S per expert — the same merged weights once the
 * per-expert result is fused.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertMetrics } from '../analysis/expert-metrics.ts';
import { ROUTER_STATS_FILE, readRouterStats } from '../analysis/router-stats.ts';
import { craneEdit } from '../crane/crane-edit.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { parseModelSpec } from '../model/config.ts';
import { isSparseLayer, type MoeSpec } from '../model/moe-config.ts';
import { expertKey, fuseExpertArrays, fusedShapes } from '../model/moe-weights.ts';
import { layerTensorName } from '../model/weights.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { runAnalysis, type AnalysisRun } from './run-analysis.ts';
import { writeTinyProject, type TinyProject } from './testing/tiny-project.ts';

const MOE = { experts: 4, perToken: 2, inner: 8 };
const LAYERS = 2;

/** Writes `to`/model.safetensors: the per-expert checkpoint `from` with each sparse layer's experts fused. */
async function fuseCheckpoint(from: string, to: string): Promise<void> {
  const checkpoint = await Checkpoint.open(from);
  try {
    const spec = parseModelSpec(checkpoint.config, from);
    const moe = spec.moe as MoeSpec;
    const values = new Map<string, Float32Array>();
    for (const name of checkpoint.tensors.keys()) values.set(name, await checkpoint.readFloat32(name));
    const tensors = [...checkpoint.tensors.values()].filter((t) => !/\.mlp\.experts\.\d+\./.test(t.name)).map((t) => ({ spec: { name: t.name, dtype: 'F32' as const, shape: t.shape }, data: values.get(t.name) as Float32Array }));
    for (let l = 0; l < spec.numLayers; l++) {
      if (!isSparseLayer(moe, l)) continue;
      const fused = fuseExpertArrays(moe, spec.hiddenSize, (e, p) => values.get(layerTensorName(l, expertKey(e, p))) as Float32Array);
      for (const [key, shape] of fusedShapes(moe, spec.hiddenSize)) tensors.push({ spec: { name: layerTensorName(l, key), dtype: 'F32', shape }, data: fused.get(key) as Float32Array });
    }
    await writeSafetensors(join(to, 'model.safetensors'), tensors);
  } finally {
    await checkpoint.close();
  }
}

/** Every tensor of the pair edited by CRANE at fine granularity with the run's gate and projectors, fused like the fused checkpoint. */
async function mergeFused(pair: { instruct: string; thinking: string }, run: AnalysisRun): Promise<Map<string, Float32Array>> {
  const settings = { ...defaultResolvedSettings({ think: [], special: [] }), alpha: 0.6, granularity: 'fine' as const };
  const edit = craneEdit(settings, { gate: run.artifacts.gate, projector: (key) => run.artifacts.projectors.get(key) });
  const [instruct, thinking] = [await Checkpoint.open(pair.instruct), await Checkpoint.open(pair.thinking)];
  try {
    const merged = new Map<string, Float32Array>();
    for (const { name, shape } of instruct.tensors.values()) merged.set(name, edit(name, shape, await instruct.readFloat32(name), await thinking.readFloat32(name)).values);
    const spec = parseModelSpec(instruct.config, pair.instruct);
    const moe = spec.moe as MoeSpec;
    for (let l = 0; l < spec.numLayers; l++) {
      if (!merged.has(layerTensorName(l, expertKey(0, 'gate_proj')))) continue;
      const fused = fuseExpertArrays(moe, spec.hiddenSize, (e, p) => merged.get(layerTensorName(l, expertKey(e, p))) as Float32Array);
      for (const [key, values] of fused) merged.set(layerTensorName(l, key), values);
      for (let e = 0; e < moe.numExperts; e++) for (const p of ['gate_proj', 'up_proj', 'down_proj'] as const) merged.delete(layerTensorName(l, expertKey(e, p)));
    }
    return merged;
  } finally {
    await instruct.close();
    await thinking.close();
  }
}

beforeAll(async () => {
  await initBackend('wasm');
});

describe('a tiny MoE pair in both expert layouts', () => {
  let root: string;
  let project: TinyProject;
  let fusedPair: { instruct: string; thinking: string };
  const runs: Partial<Record<'perExpert' | 'fused', AnalysisRun>> = {};

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'crane-expert-layouts-'));
    project = await writeTinyProject(join(root, 'per-expert'), { model: { moe: MOE } });
    fusedPair = { instruct: join(root, 'fused', 'instruct'), thinking: join(root, 'fused', 'thinking') };
    for (const side of ['instruct', 'thinking'] as const) {
      await cp(project[side], fusedPair[side], { recursive: true, filter: (from) => !from.endsWith('.safetensors') });
      await fuseCheckpoint(project[side], fusedPair[side]);
    }
    runs.perExpert = await runAnalysis({ ...project, outDir: join(root, 'analysis-per-expert') });
    runs.fused = await runAnalysis({ ...project, ...fusedPair, outDir: join(root, 'analysis-fused') });
  }, 600_000);

  afterAll(() => rm(root, { recursive: true, force: true }));

  const both = () => [runs.perExpert, runs.fused] as [AnalysisRun, AnalysisRun];

  it('stores the experts fused on one side only', async () => {
    const fused = await Checkpoint.open(fusedPair.instruct);
    try {
      expect(fused.tensors.get('model.layers.1.mlp.experts.gate_up_proj')?.shape).toEqual([MOE.experts, 2 * MOE.inner, 16]);
      expect(fused.tensors.has('model.layers.1.mlp.experts.0.gate_proj.weight')).toBe(false);
    } finally {
      await fused.close();
    }
  });

  it('scores the same S per expert (and no per-projection block for the fused tensors)', () => {
    const [perExpert, fused] = both();
    for (let l = 0; l < LAYERS; l++) {
      for (let e = 0; e < MOE.experts; e++) {
        const want = perExpert.artifacts.gate.scores.get(`expert.${e}@${l}`);
        const got = fused.artifacts.gate.scores.get(`expert.${e}@${l}`);
        expect(want?.sums.count).toBe(3 * MOE.inner * 16);
        expect(got?.sums.count).toBe(want?.sums.count);
        expect(got?.scale).toBeCloseTo(want?.scale ?? NaN, 9);
        expect(got?.sums.reasoning).toBeCloseTo(want?.sums.reasoning ?? NaN, 12);
      }
      expect(fused.artifacts.gate.scores.has(`expert.gate_up@${l}`)).toBe(false);
    }
    expect([...fused.artifacts.gate.scores.keys()].sort()).toEqual([...perExpert.artifacts.gate.scores.keys()].sort());
  });

  it('gives the same layer × expert metrics', async () => {
    const [perExpert, fused] = await Promise.all(both().map(async (run) => expertMetrics(run.artifacts.gate, await readRouterStats(join(pipelinePaths(run.dir).projectors, ROUTER_STATS_FILE)), LAYERS)));
    expect(fused?.gate.values.every(Number.isFinite)).toBe(true);
    for (const key of ['gate', 'sumReasoning', 'sumAgent', 'conflictShare', 'relativeDelta'] as const) {
      const want = Array.from(perExpert?.[key].values ?? []);
      Array.from(fused?.[key].values ?? []).forEach((v, i) => expect(v, `${key}[${i}]`).toBeCloseTo(want[i] ?? NaN, 5));
    }
    expect(fused?.routing).toEqual(perExpert?.routing);
  });

  it('has the same preview entries (one per expert and projector)', () => {
    const keys = (run: AnalysisRun) => run.artifacts.coefficients.entries.map((e) => `${e.group}.${e.block}@${e.layer}|${e.projector}|${e.coordinates}`).sort();
    const [perExpert, fused] = both();
    expect(keys(fused)).toEqual(keys(perExpert));
  });

  it('merges to the same weights at fine granularity, once the per-expert result is fused', async () => {
    const [perExpert, fused] = both();
    const want = await mergeFused(project, perExpert);
    const got = await mergeFused(fusedPair, fused);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [name, values] of got) {
      const expected = want.get(name) as Float32Array;
      const scale = Math.max(...expected.map(Math.abs));
      expect(Math.max(...values.map((v, i) => Math.abs(v - (expected[i] as number)))) / scale, name).toBeLessThan(1e-6);
    }
  });
});
