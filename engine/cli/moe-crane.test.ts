/**
 * CRANE on a tiny Qwen3-MoE pair end to end, as `crane analyze` + `crane merge` run it, in both
 * expert layouts: the analysis differentiates through the MoE runtime (routers and experts get
 * gradients), the gate is normalised by the `expert` block, the format projector of each layer's
 * post-attention-norm output is applied to every expert's gate/up, the router is SLERPed with
 * t = α/3, and the analysis carries router statistics per calibration set.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertMetrics } from '../analysis/expert-metrics.ts';
import { ROUTER_STATS_FILE, readRouterStats } from '../analysis/router-stats.ts';
import { routerSlerpInto } from '../crane/slerp.ts';
import { projectorKey } from '../crane/tensor-classification.ts';
import { blockColumns } from '../handlers/block-columns.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import { runAnalysis, type AnalysisRun } from '../pipeline/run-analysis.ts';
import { writeTinyProject, type TinyProject } from '../pipeline/testing/tiny-project.ts';
import { DEFAULT_ALPHA } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { runCli } from './testing.ts';

const MOE = { experts: 4, perToken: 2, inner: 8 };
/** writeTinyProject's hidden size. */
const HIDDEN = 16;

beforeAll(async () => {
  await initBackend('wasm');
});

describe.each([false, true])('CRANE on a tiny Qwen3-MoE pair (fused expert tensors: %s)', (fused) => {
  let root: string;
  let project: TinyProject;
  let run: AnalysisRun;
  let merged: string;
  /** The layer's tensors whose input is the post-attention norm output: every expert's gate and up. */
  const gateUpTensors = (layer: number): string[] => (fused
    ? [`model.layers.${layer}.mlp.experts.gate_up_proj`]
    : Array.from({ length: MOE.experts }, (_, e) => ['gate', 'up'].map((p) => `model.layers.${layer}.mlp.experts.${e}.${p}_proj.weight`)).flat());

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'crane-moe-'));
    project = await writeTinyProject(root, { model: { moe: { ...MOE, fused } } });
    const outDir = join(root, 'analysis');
    run = await runAnalysis({ ...project, outDir });
    merged = join(root, 'merged');
    const result = await runCli(['merge', project.instruct, project.thinking, '--analysis', outDir, '--out', merged]);
    expect(result.code, result.err).toBe(0);
  }, 300_000);

  afterAll(() => rm(root, { recursive: true, force: true }));

  it('scores expert and router blocks, normalised by the expert block of each layer', () => {
    const { gate } = run.artifacts;
    expect(gate.reference).toBe('expert');
    for (const layer of [0, 1]) {
      expect(gate.scores.get(`expert@${layer}`)?.scale).toBe(1);
      expect(gate.scores.get(`expert@${layer}`)?.sums.positive).toBeGreaterThan(0);
      expect(gate.scores.get(`expert@${layer}`)?.sums.count).toBe(MOE.experts * 3 * MOE.inner * HIDDEN);
      expect(gate.scores.get(`router@${layer}`)?.sums.count).toBe(MOE.experts * HIDDEN);
      expect(gate.scores.has(`ffn@${layer}`)).toBe(false);
    }
    // Fine mode: one block per routed expert, its gate/up/down pooled, in expert order (a fused tensor is scored per expert too).
    const fine = blockColumns(gate, 'fine').names;
    const experts = Array.from({ length: MOE.experts }, (_, e) => `expert.${e}`);
    expect(fine.filter((name) => name.startsWith('expert'))).toEqual(experts);
    expect(gate.scores.get('expert.1@1')?.sums.count).toBe(3 * MOE.inner * HIDDEN);
    for (const name of fine) expect(name).toMatch(/^[a-z_]+(\.\d+)?$/);
  });

  it('writes router statistics per set, sparse layer and expert (each token counted k times, probabilities summing to 1)', async () => {
    const stats = await readRouterStats(join(pipelinePaths(join(root, 'analysis')).projectors, ROUTER_STATS_FILE));
    expect(stats?.numExperts).toBe(MOE.experts);
    for (const set of ['reasoning', 'agent', 'format'] as const) {
      const entry = stats?.sets[set];
      expect(entry?.tokens, set).toBeGreaterThan(0);
      expect(entry?.layers.map((l) => l.layer)).toEqual([0, 1]);
      for (const layer of entry?.layers ?? []) {
        expect(layer.routed.reduce((a, b) => a + b, 0)).toBe(MOE.perToken * (entry?.tokens ?? 0));
        expect(layer.meanProbability.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
      }
    }
  });

  it('lays S per expert and the router statistics out as layers × experts', async () => {
    const stats = await readRouterStats(join(pipelinePaths(join(root, 'analysis')).projectors, ROUTER_STATS_FILE));
    const metrics = expertMetrics(run.artifacts.gate, stats, 2);
    expect(metrics).toMatchObject({ layers: 2, experts: MOE.experts, expertsPerToken: MOE.perToken });
    for (const layer of [0, 1]) {
      for (let e = 0; e < MOE.experts; e++) {
        const s = metrics?.gate.values[layer * MOE.experts + e] as number;
        expect(s).toBeCloseTo(Math.fround(run.artifacts.gate.scores.get(`expert.${e}@${layer}`)?.scale ?? NaN), 6);
      }
      const routed = stats?.sets.agent?.layers.find((l) => l.layer === layer)?.routed ?? [];
      expect(Array.from(metrics?.routing.agent?.routed.values.subarray(layer * MOE.experts, (layer + 1) * MOE.experts) ?? [])).toEqual(routed);
    }
  });

  it('SLERPs the router with t = α/3 and keeps the format directions out of every expert gate/up', async () => {
    const instruct = await Checkpoint.open(project.instruct);
    const thinking = await Checkpoint.open(project.thinking);
    const out = await Checkpoint.open(merged);
    try {
      const name = 'model.layers.1.mlp.gate.weight';
      const [a, b] = [await instruct.readFloat32(name), await thinking.readFloat32(name)];
      const want = new Float32Array(a.length);
      routerSlerpInto(a, b, DEFAULT_ALPHA / 3, want);
      const got = await out.readFloat32(name);
      expect(Math.max(...got.map((v, i) => Math.abs(v - (want[i] as number))))).toBeLessThan(1e-6);

      const projector = run.artifacts.projectors.get(projectorKey(1, 'ffn_input'));
      const rank = projector?.rank ?? 0;
      expect(rank).toBeGreaterThan(0);
      const top = (projector?.basis ?? new Float32Array()).filter((_, i) => i % rank === 0);
      // ‖M·v₁‖ over M's rows of HIDDEN inputs: the strongest format direction (mask weight ≈ 1).
      const along = (m: Float32Array): number => Math.hypot(...Array.from({ length: m.length / HIDDEN }, (_, r) => top.reduce((s, v, j) => s + v * (m[r * HIDDEN + j] as number), 0)));
      for (const key of gateUpTensors(1)) {
        const thetaI = await instruct.readFloat32(key);
        const delta = (await thinking.readFloat32(key)).map((v, i) => v - (thetaI[i] as number));
        const edit = (await out.readFloat32(key)).map((v, i) => v - (thetaI[i] as number));
        expect(along(edit), key).toBeLessThan(1e-4 * along(delta));
        expect(Math.hypot(...edit), key).toBeGreaterThan(0);
      }
    } finally {
      for (const c of [instruct, thinking, out]) await c.close();
    }
  });

  it('the merged checkpoint runs on the MoE runtime', async () => {
    const out = await Checkpoint.open(merged);
    try {
      expect([...out.tensors.keys()].some((n) => n.endsWith('mlp.experts.gate_up_proj'))).toBe(fused);
      const logits = await loadCausalLM(out).forwardLogits([1, 2, 3, 4]);
      expect(logits.values.every(Number.isFinite)).toBe(true);
      expect(JSON.parse(await readFile(join(merged, 'config.json'), 'utf8'))).toMatchObject({ architectures: ['Qwen3MoeForCausalLM'], num_experts: 4 });
    } finally {
      await out.close();
    }
  });
});
