/**
 * The curvature stage on a tiny analysed pair (untied lm_head, so every direction kind is there),
 * against measured losses: second differences of L_K along the stage's own directions, built
 * with editedWeightSource and scored with sequenceLosses on the same train sequences, and the
 * anchors against Verify on the calibration sets. Then cancellation inside a pass, and the same
 * stage sketched from a forced-low probe budget (cancelled after its first probe, resumed)
 * against the dense result along the default edit.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstantPreview } from '../analysis/preview.ts';
import type { PreviewCurvature } from '../analysis/preview-curvature.ts';
import { editDirections, type DirectionBasis } from '../crane/edit-directions.ts';
import { wholeDeltas } from '../crane/testing/whole-deltas.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { editTokenRows } from './checkpoint-tokenizer.ts';
import { ANCHOR_ALPHAS, loadCurvature } from './curvature-stage.ts';
import { DeltaStore } from './delta-store.ts';
import { ComputedDeltas } from './direction-deltas.ts';
import { DirectionalGradients } from './directional-gradients.ts';
import { editFor } from './edit-method.ts';
import { editedWeightSource } from './edited-source.ts';
import { pipelinePaths, readPipelineRecord } from './pipeline-folder.ts';
import { CancelledError } from './progress.ts';
import { runAnalysis } from './run-analysis.ts';
import type { AnalysisRun } from './run-analysis.ts';
import { analysedCurvature } from './testing/analysed-curvature.ts';
import { gatheredDeltas } from './testing/gathered-deltas.ts';
import type { AnalysedProject } from './testing/analysed-project.ts';
import { verifyEdit } from './verify.ts';

let root: string;
let outDir: string;
let project: AnalysedProject;
let run: AnalysisRun;
let curvature: PreviewCurvature;
let instruct: Checkpoint;
let thinking: Checkpoint;
let basis: DirectionBasis;
let batches: Record<'reasoning' | 'agent', LossSequence[]>;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-curvature-'));
  ({ project, curvature, instruct, thinking, batches } = await analysedCurvature(root, { model: { tied: false }, noise: 0.01 }));
  ({ run, outDir } = project);
  const tokens = await editTokenRows(project.instruct, () => undefined);
  basis = editDirections(instruct.tensors.keys(), defaultResolvedSettings(tokens), tokens, context());
}, 600_000);

afterAll(async () => {
  await instruct.close();
  await thinking.close();
  await rm(root, { recursive: true, force: true });
});

/** θ_I + Σ steps[b]·Δ_b. */
function along(steps: ReadonlyMap<number, number>): PairedEdit {
  return (name, shape, thetaI, thetaT) => {
    const values = Float32Array.from(thetaI);
    for (const { direction, delta } of wholeDeltas(basis, name, shape, thetaI, thetaT)) {
      const step = steps.get(direction) ?? 0;
      delta.forEach((d, i) => (values[i] = (values[i] as number) + step * d));
    }
    return { values };
  };
}

async function loss(steps: ReadonlyMap<number, number>, set: 'reasoning' | 'agent'): Promise<number> {
  const scores = await loadCausalLM(editedWeightSource(instruct, thinking, along(steps))).sequenceLosses(batches[set]);
  return scores.reduce((sum, s) => sum + s.loss, 0) / scores.length;
}

/** A float64 list as bytes, so equal means bit-identical (−0, NaN payloads and all). */
const bits = (values: readonly number[]) => new Uint8Array(Float64Array.from(values).buffer);
const context = () => ({ gate: run.artifacts.gate, projector: (key: string) => run.artifacts.projectors.get(key) });

const index = (key: string) => basis.directions.findIndex((d) => d.key === key);
const entry = (matrix: readonly number[], b: number, c: number) => matrix[b * basis.directions.length + c] as number;

describe('curvature stage', () => {
  it('runs after gates, marks itself done and measures along the same directions the edit is made of', () => {
    expect(run.stages.map((s) => s.stage)).toEqual(['targets', 'projectors', 'gradients', 'gates', 'curvature']);
    expect(curvature.directions).toEqual(basis.directions);
    expect(curvature.directions.map((d) => d.group)).toEqual(expect.arrayContaining(['attention', 'ffn', 'norm', 'final_norm', 'lm_head_blend']));
  });

  it('matches finite differences of measured losses: g·Δ, the secant curvature (diagonal and cross) and the local one', async () => {
    const [a, f] = [index('attention@0'), index('ffn@1')];
    const k = 0.02; // central-difference step for slopes: the losses are smooth on this scale
    for (const set of ['reasoning', 'agent'] as const) {
      const at = (sa: number, sf: number) => loss(new Map([[a, sa], [f, sf]]), set);
      /** d/dt L at (sa, sf) + t·(direction), from measured losses. */
      const slope = async (sa: number, sf: number, along: 'a' | 'f') => {
        const [da, df] = along === 'a' ? [k, 0] : [0, k];
        return ((await at(sa + da, sf + df)) - (await at(sa - da, sf - df))) / (2 * k);
      };
      const g = curvature.firstOrder[set];
      const m = (curvature.hessian as NonNullable<PreviewCurvature['hessian']>)[set]; // dense: the tiny pair has a few directions
      const [ea, ef] = [curvature.epsilon[a] as number, curvature.epsilon[f] as number];
      const close = (estimate: number, measured: number, relative: number) => expect(Math.abs(estimate - measured)).toBeLessThanOrEqual(relative * Math.abs(measured) + 1e-6);
      close(g[a] as number, await slope(0, 0, 'a'), 0.01);
      // What the stage estimates, Δ_bᵀ(∇L(θ + ε_bΔ_b) − ∇L(θ))/ε_b symmetrised, from losses alone.
      close(entry(m, a, a), ((await slope(ea, 0, 'a')) - (g[a] as number)) / ea, 0.02);
      const cross = (((await slope(ea, 0, 'f')) - (g[f] as number)) / ea + ((await slope(0, ef, 'a')) - (g[a] as number)) / ef) / 2;
      close(entry(m, a, f), cross, 0.05);
      expect(entry(m, a, f)).toBe(entry(m, f, a));
      // The local second derivative, (L(h) − 2L(0) + L(−h))/h²: the secant over ε_b differs by third-order terms.
      const h = 0.1;
      close(entry(m, a, a), ((await at(h, 0)) - 2 * (await at(0, 0)) + (await at(-h, 0))) / (h * h), 0.35);
    }
  }, 600_000);

  it('has the layer blocks\' g·Δ the gradients stage gives the preview', () => {
    const layersOnly = new InstantPreview(run.artifacts.coefficients, run.artifacts.gate).evaluate(defaultResolvedSettings({ think: [], special: [] }));
    const withCurvature = new InstantPreview(run.artifacts.coefficients, run.artifacts.gate, curvature);
    const layerGroups = new Set(['attention', 'ffn', 'norm']);
    const layerFirstOrder = withCurvature.evaluate(defaultResolvedSettings({ think: [], special: [] })).breakdown.filter((t) => layerGroups.has(t.group)).reduce((s, t) => s + t.firstOrder.reasoning, 0);
    expect(layerFirstOrder).toBeCloseTo(layersOnly.deltaLossReasoning, 12);
    // The stage's own pass at θ_I, dotted per direction (c_b = α·S_b), agrees with the stored gradients' moments.
    const direct = curvature.directions.reduce((sum, d, b) => {
      if (!layerGroups.has(d.group)) return sum;
      return sum + (layersOnly.effectiveScale[layersOnly.blocks.indexOf(d.key)] as number) * (curvature.firstOrder.reasoning[b] as number);
    }, 0);
    expect(Math.abs(direct - layersOnly.deltaLossReasoning)).toBeLessThan(1e-4 * Math.abs(layersOnly.deltaLossReasoning) + 1e-7);
  });

  it('has the first order the passes gave when lm_head\'s blend Δ was gathered whole (before it was formed by rows), bit for bit', async () => {
    const gathered = new DirectionalGradients(instruct, gatheredDeltas({ instruct, thinking }, basis));
    expect(curvature.firstOrder.reasoning[index('lm_head.blend')]).not.toBe(0);
    for (const set of ['reasoning', 'agent'] as const) {
      const pass = await gathered.pass(instruct, batches[set], project.settings.batchSequences, undefined);
      expect(bits(curvature.firstOrder[set])).toEqual(bits(Array.from(pass.dots)));
    }
  }, 600_000);

  it('takes θ_I\'s losses from the base pass: a forward\'s bit for bit, and a sequence\'s loss is the same in any batch', async () => {
    const along = new DirectionalGradients(instruct, new ComputedDeltas(instruct, thinking, basis, await DeltaStore.open()));
    const model = loadCausalLM(instruct);
    const separate: number[] = [];
    for (const set of ['reasoning', 'agent'] as const) {
      const pass = await along.pass(instruct, batches[set], project.settings.batchSequences, undefined);
      const forward = (await model.sequenceLosses(batches[set])).map((s) => s.loss);
      expect(forward.length).toBeGreaterThan(1);
      expect(bits(pass.sequenceLosses)).toEqual(bits(forward));
      separate.push(...forward);
    }
    // The anchors score both sets in one batch and split the losses back.
    const together = (await model.sequenceLosses([...batches.reasoning, ...batches.agent])).map((s) => s.loss);
    expect(bits(together)).toEqual(bits(separate));
  }, 600_000);

  it('measures the default edit at the anchor α as Verify does on the calibration sets', async () => {
    expect(curvature.anchors.map((a) => a.alpha)).toEqual([...ANCHOR_ALPHAS]);
    const tokens = await editTokenRows(instruct.dir, () => undefined);
    // Exactly what one forward per set at θ_I and at the edit gives (the stage's measurement before it shared passes).
    const meanLoss = async (weights: Parameters<typeof loadCausalLM>[0], set: 'reasoning' | 'agent') => {
      const scores = await loadCausalLM(weights).sequenceLosses(batches[set]);
      return scores.reduce((sum, s) => sum + s.loss, 0) / scores.length;
    };
    for (const anchor of curvature.anchors) {
      const edited = editedWeightSource(instruct, thinking, editFor({ method: 'crane', settings: { ...defaultResolvedSettings(tokens), keepQuantile: project.settings.keepQuantile, alpha: anchor.alpha } }, context()));
      for (const set of ['reasoning', 'agent'] as const) expect(anchor.measured[set]).toBe((await meanLoss(edited, set)) - (await meanLoss(instruct, set)));
    }
    const verified = await verifyEdit({ analysisDir: outDir, method: { method: 'crane', settings: { ...defaultResolvedSettings(tokens), alpha: 0.25 } }, evaluation: { source: 'calibration' } });
    expect(curvature.anchors[0]?.measured.reasoning).toBeCloseTo(verified.measured.reasoning, 6);
    expect(curvature.anchors[0]?.measured.agent).toBeCloseTo(verified.measured.agent, 6);
  }, 600_000);
});

describe('curvature stage at scale', () => {
  it('stops a pass at the next weight read once cancelled', async () => {
    const along = new DirectionalGradients(instruct, new ComputedDeltas(instruct, thinking, basis, await DeltaStore.open()));
    const controller = new AbortController();
    const reads: string[] = [];
    const counted = {
      dir: instruct.dir, config: instruct.config, tensors: instruct.tensors, tensor: (name: string) => instruct.tensor(name),
      readFloat32: (name: string) => {
        reads.push(name);
        if (name.startsWith('model.layers.1.')) controller.abort();
        return instruct.readFloat32(name);
      },
    };
    await expect(along.pass(counted, batches.reasoning, 8, controller.signal)).rejects.toBeInstanceOf(CancelledError);
    // The read that aborted was the last: no later layer, no backward, no head.
    expect(reads.at(-1)).toMatch(/^model\.layers\.1\./);
    expect(reads.filter((name) => name.startsWith('model.layers.1.'))).toHaveLength(1);
  });

  it('sketches M from a forced-low budget, exact along the default edit, and resumes a cancelled run after its last pass', async () => {
    const B = basis.directions.length;
    const settings = { ...project.settings, curvatureProbes: 2 };
    expect(B).toBeGreaterThan(settings.curvatureProbes);
    const controller = new AbortController();
    const cancelled = runAnalysis({ ...project, outDir, settings, signal: controller.signal, onProgress: (e) => { if (e.message?.startsWith('H_R·Δ 1/') === true) controller.abort(); } });
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    const logged = Object.keys(JSON.parse(await readFile(join(pipelinePaths(outDir).curvature, 'passes.json'), 'utf8')) as object);
    expect(logged).toEqual(['reasoning:base', 'reasoning:probe0']);
    await runAnalysis({ ...project, outDir, settings });
    const sketched = await loadCurvature(outDir, await readPipelineRecord(outDir)) as PreviewCurvature;
    expect(sketched.hessian).toBeUndefined();
    expect(sketched.firstOrder).toEqual(curvature.firstOrder);
    // Both are finite-difference estimates of one curvature along the default edit (the sketch's from 2 probes, the
    // edit's α-free and α parts; the dense one's from a secant per direction): at the anchors (ΔL measured at real
    // edits) the sketch is within twice the dense model's own miss.
    const defaults = defaultResolvedSettings(await editTokenRows(instruct.dir, () => undefined));
    for (const anchor of curvature.anchors) {
      const predicted = (matrix: PreviewCurvature) => new InstantPreview(run.artifacts.coefficients, run.artifacts.gate, matrix).evaluate({ ...defaults, alpha: anchor.alpha });
      const [dense, sketch] = [predicted(curvature), predicted(sketched)];
      expect(Math.abs(sketch.deltaLossReasoning - anchor.measured.reasoning)).toBeLessThanOrEqual(2 * Math.abs(dense.deltaLossReasoning - anchor.measured.reasoning) + 1e-4);
      expect(Math.abs(sketch.deltaLossAgent - anchor.measured.agent)).toBeLessThanOrEqual(2 * Math.abs(dense.deltaLossAgent - anchor.measured.agent) + 1e-4);
    }
  }, 600_000);
});
