/**
 * The per-pass analysis of a looped model end to end: a tiny NanbeigeForCausalLM pair (two passes
 * over the same layers) analysed by runAnalysis, its per-pass metrics checked against the combined
 * gate table, a hand computation from the stored per-pass gradients, and a projector computed the
 * dense way from both passes' rows concatenated; a dense pair's stage keys and files unchanged.
 */
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASS_METRICS_FILE, readPassMetrics } from '../analysis/pass-metrics.ts';
import { blockKey } from '../crane/gate-accumulator.ts';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows } from '../crane/gsp-projector.ts';
import { projectorKey } from '../crane/tensor-classification.ts';
import { taskVector } from '../crane/tensor-pair.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { StoredPassBlock, StoredPassMetrics } from '../protocol/pass-schemas.ts';
import { initBackend } from '../tensor/backend.ts';
import { readSequences } from './calibration-sequences.ts';
import { GradientStore } from './gradient-store.ts';
import { splitPassParts } from './pass-gradients.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { runAnalysis, type AnalysisRun } from './run-analysis.ts';
import { STAGE_MARKER } from './stage-store.ts';
import { writeTinyProject, type TinyProject } from './testing/tiny-project.ts';

let root: string;
let project: TinyProject;
let run: AnalysisRun;
let metrics: StoredPassMetrics;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-passes-'));
  project = await writeTinyProject(root, { model: { loop: { numLoops: 2 } } });
  run = await runAnalysis({ ...project, outDir: join(root, 'analysis') });
  metrics = await readPassMetrics(join(pipelinePaths(run.dir).passes, PASS_METRICS_FILE)) as StoredPassMetrics;
}, 300_000);

afterAll(() => rm(root, { recursive: true, force: true }));

describe('per-pass analysis of a looped model', () => {
  it('has every pass of every scored block, and the passes\' Σs add up to the combined gate\'s', () => {
    expect(metrics.passes).toBe(2);
    const perLayer = [...run.artifacts.gate.scores.values()].filter((score) => score.id.layer !== null);
    expect(metrics.blocks).toHaveLength(2 * perLayer.length);
    for (const score of perLayer) {
      const passes = metrics.blocks.filter((b) => blockKey({ group: b.group as typeof score.id.group, block: b.block, layer: b.layer }) === blockKey(score.id));
      expect(passes.map((b) => b.pass).sort()).toEqual([0, 1]);
      expect(passes.map((b) => b.count)).toEqual([score.sums.count, score.sums.count]);
      const [first, second] = passes as [StoredPassBlock, StoredPassBlock];
      const scale = Math.abs(score.sums.reasoning) + Math.abs(score.sums.agent) + 1e-12;
      // s is linear in g: Σ_pass s_pass = s_combined, up to the float32 rounding of the stored sum g_0 + g_1
      expect(Math.abs(first.sumReasoning + second.sumReasoning - score.sums.reasoning) / scale).toBeLessThan(1e-5);
      expect(Math.abs(first.sumAgent + second.sumAgent - score.sums.agent) / scale).toBeLessThan(1e-5);
      // each pass has its own part (not the sum, not half of it)
      expect(first.sumReasoning).not.toBeCloseTo(second.sumReasoning, 6);
    }
  });

  it('gives each pass its own conflict share and Σs, as computed by hand from that pass\'s stored gradients', async () => {
    const paths = pipelinePaths(run.dir);
    const stores = { reasoning: await GradientStore.open(join(paths.gradients, 'reasoning')), agent: await GradientStore.open(join(paths.gradients, 'agent')) };
    const instruct = await Checkpoint.open(project.instruct);
    const thinking = await Checkpoint.open(project.thinking);
    try {
      const layer = 1;
      const name = `model.layers.${layer}.mlp.down_proj.weight`;
      const gR = splitPassParts(await stores.reasoning.readLayer(layer)).passes;
      const gA = splitPassParts(await stores.agent.readLayer(layer)).passes;
      const delta = taskVector(await instruct.readFloat32(name), await thinking.readFloat32(name));
      for (const pass of [0, 1]) {
        let sR = 0, sA = 0, conflict = 0, total = 0;
        const r = gR[pass]?.get(name) as Float32Array;
        const a = gA[pass]?.get(name) as Float32Array;
        delta.forEach((d, j) => {
          const x = -(r[j] as number) * d;
          const y = -(a[j] as number) * d;
          sR += x;
          sA += y;
          total += Math.abs(x) + Math.abs(y);
          if (x * y < 0) conflict += Math.abs(x) + Math.abs(y);
        });
        const block = metrics.blocks.find((b) => b.pass === pass && b.layer === layer && b.group === 'ffn' && b.block === 'down');
        expect(block?.sumReasoning).toBeCloseTo(sR, 12);
        expect(block?.sumAgent).toBeCloseTo(sA, 12);
        expect(block?.conflictShare).toBeCloseTo(conflict / total, 12);
        expect(block?.conflictShare).toBeGreaterThan(0);
      }
    } finally {
      await instruct.close();
      await thinking.close();
    }
  });

  it('stores per-pass gradient parts that are the runtime\'s own per-pass gradients', async () => {
    const sequences = (await readSequences(pipelinePaths(run.dir).sequences)).filter((s) => s.set === 'agent').map((s) => ({ ids: s.ids, targets: s.lossMask ?? [] }));
    const store = await GradientStore.open(join(pipelinePaths(run.dir).gradients, 'agent'));
    const instruct = await Checkpoint.open(project.instruct);
    try {
      const direct = new Map<string, Float32Array>();
      await loadCausalLM(instruct).lossAndPassGrads(sequences, (pass, layer, grads) => {
        if (layer === 0) for (const [name, g] of grads) direct.set(`${pass}:${name}`, g);
      });
      const stored = splitPassParts(await store.readLayer(0)).passes;
      expect(stored.map((part) => part.size)).toEqual([9, 9]);
      for (const pass of [0, 1]) {
        for (const [name, g] of stored[pass] ?? []) {
          const want = direct.get(`${pass}:${name}`) as Float32Array;
          const scale = Math.max(...want.map(Math.abs));
          g.forEach((v, i) => expect(Math.abs(v - (want[i] as number))).toBeLessThan(1e-5 * scale));
        }
      }
    } finally {
      await instruct.close();
    }
  });

  it('pools both passes into the projectors, as the dense formulation on the passes\' rows concatenated', async () => {
    const sequences = (await readSequences(pipelinePaths(run.dir).sequences)).filter((s) => s.set === 'format').map((s) => ({ ids: s.ids, positions: s.formatPositions as number[] }));
    const instruct = await Checkpoint.open(project.instruct);
    try {
      const model = loadCausalLM(instruct);
      const rows: Float32Array[][] = [[], []];
      await model.captureActivations(sequences, (a) => {
        if (a.layer === 0) rows[a.pass]?.push(a.attnInput);
      });
      const concatenated = new GramAccumulator(model.spec.hiddenSize);
      for (const r of [...rows[0] ?? [], ...rows[1] ?? []]) concatenated.addRows(r);
      const { maxRank, rankCut } = project.settings.analysis.gsp;
      const dense = projectorOfRows(concatenated, { maxRank, rankCut });
      const pooled = run.artifacts.projectors.get(projectorKey(0, 'attn_input'));
      expect(pooled?.sigma).toEqual(dense?.sigma);
      expect(pooled?.basis).toEqual(dense?.basis);
      const spectra = metrics.spectra.filter((s) => s.layer === 0 && s.key === 'attn_input');
      expect(spectra.map((s) => s.pass)).toEqual([null, 0, 1]);
      expect(spectra[0]?.sigma).toEqual([...dense?.sigma ?? []]);
      for (const pass of [0, 1]) {
        const own = new GramAccumulator(model.spec.hiddenSize);
        for (const r of rows[pass] ?? []) own.addRows(r);
        expect(spectra[pass + 1]?.sigma).toEqual([...projectorOfRows(own, { maxRank, rankCut })?.sigma ?? []]);
      }
      expect(spectra[1]?.sigma).not.toEqual(spectra[2]?.sigma);
    } finally {
      await instruct.close();
    }
  });

  it('writes the same gradient files, per-pass parts included, on two worker threads', async () => {
    const parallel = await runAnalysis({ ...project, settings: { ...project.settings, workers: 2 }, outDir: join(root, 'parallel') });
    for (const set of ['reasoning', 'agent']) {
      const dir = (run: AnalysisRun) => join(pipelinePaths(run.dir).gradients, set);
      const names = (await readdir(dir(run))).filter((f) => f.endsWith('.safetensors'));
      expect(names.length).toBe(2);
      for (const name of names) expect((await readFile(join(dir(parallel), name))).equals(await readFile(join(dir(run), name))), name).toBe(true);
    }
    expect(await readPassMetrics(join(pipelinePaths(parallel.dir).passes, PASS_METRICS_FILE))).toEqual(metrics);
  }, 300_000);

  it('finds everything cached on a second run, per-pass metrics included', async () => {
    const again = await runAnalysis({ ...project, outDir: run.dir });
    expect(again.stages.map((s) => s.cached)).toEqual([true, true, true, true, true]);
    await rm(join(pipelinePaths(run.dir).passes, STAGE_MARKER));
    const rerun = await runAnalysis({ ...project, outDir: run.dir });
    expect(rerun.stages.map((s) => `${s.stage} ${s.cached}`)).toEqual(['targets true', 'projectors true', 'gradients true', 'gates false', 'curvature true']);
    expect(await readPassMetrics(join(pipelinePaths(run.dir).passes, PASS_METRICS_FILE))).toEqual(metrics);
  }, 120_000);
});

describe('a dense pair', () => {
  it('keeps its stage keys and files: no per-pass parts, spectra or metrics', async () => {
    const dense = await writeTinyProject(join(root, 'dense'));
    const analysed = await runAnalysis({ ...dense, outDir: join(root, 'dense', 'analysis') });
    const paths = pipelinePaths(analysed.dir);
    const store = await GradientStore.open(join(paths.gradients, 'reasoning'));
    expect([...(await store.readLayer(0)).keys()].every((name) => name.startsWith('model.layers.0.'))).toBe(true);
    await expect(access(paths.passes)).rejects.toThrow();
    for (const [stage, key] of [[paths.gradients, ['batches', 'instruct', 'targets']], [paths.projectors, ['instruct', 'maxRank', 'rankCut', 'targets']]] as const) {
      expect(Object.keys(JSON.parse(await readFile(join(stage, STAGE_MARKER), 'utf8')) as object).sort()).toEqual(key);
    }
    await expect(access(join(paths.projectors, 'pass-spectra.json'))).rejects.toThrow();
  }, 300_000);
});
