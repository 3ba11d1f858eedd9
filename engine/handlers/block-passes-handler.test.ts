/**
 * getBlockPasses through the handlers, its answer checked against the protocol schema as the host
 * checks it: on a tiny analysed looped pair, each tensor's per-pass ΔL computed by hand from the
 * stored per-pass gradients and the checkpoints, the passes adding up to the combined gradient's
 * ΔL, and Task Arithmetic's per-pass ΔL agreeing with getPassMetrics' Σs of raw δ; refused before
 * the analysis, null for a dense pair.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskVector } from '../crane/tensor-pair.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { GradientStore } from '../pipeline/gradient-store.ts';
import { splitPassParts } from '../pipeline/pass-gradients.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import { writeTinyProject } from '../pipeline/testing/tiny-project.ts';
import { projectPaths } from '../project/project-layout.ts';
import { DEFAULT_CRANE_SETTINGS } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harness, harnessOn, type Harness } from './testing/handler-harness.ts';

let root: string;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-block-passes-'));
});

afterAll(() => rm(root, { recursive: true, force: true }));

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);
const LAMBDA = 0.7;
const BLOCK = { layer: 1, group: 'ffn' };

async function analysed(h: Harness): Promise<void> {
  await call(h, 'openProject', { projectDir: h.projectDir });
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
  await call(h, 'analyze', { projectDir: h.projectDir, settings: h.settings.analysis });
}

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, v, i) => sum + v * (b[i] as number), 0);
}

function absDot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, v, i) => sum + Math.abs(v * (b[i] as number)), 0);
}

describe('getBlockPasses', () => {
  it('gives each tensor\'s first-order ΔL per pass from that pass\'s stored gradient and the method\'s update', async () => {
    const looped = join(root, 'looped');
    const h = await harnessOn(looped, await writeTinyProject(looped, { model: { loop: { numLoops: 2 } } }));
    await call(h, 'openProject', { projectDir: h.projectDir });
    await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
    const arithmetic = { method: 'task_arithmetic', lambda: LAMBDA } as const;
    expect(await codeOf(call(h, 'getBlockPasses', { block: BLOCK, method: arithmetic }))).toBe('not-found');
    await analysed(h);

    const served = await call(h, 'getBlockPasses', { block: BLOCK, method: arithmetic });
    if (served === null) throw new Error('a looped pair has per-pass contributions');
    expect(served.passes).toBe(2);
    expect(served.tensors.map((t) => t.name)).toEqual(['gate_proj', 'up_proj', 'down_proj'].map((p) => `model.layers.1.mlp.${p}.weight`));

    const gradients = pipelinePaths(projectPaths(h.projectDir).analysis).gradients;
    const stored = {
      reasoning: splitPassParts(await (await GradientStore.open(join(gradients, 'reasoning'))).readLayer(BLOCK.layer)),
      agent: splitPassParts(await (await GradientStore.open(join(gradients, 'agent'))).readLayer(BLOCK.layer)),
    };
    const instruct = await Checkpoint.open(h.instruct);
    const thinking = await Checkpoint.open(h.thinking);
    try {
      for (const tensor of served.tensors) {
        const update = taskVector(await instruct.readFloat32(tensor.name), await thinking.readFloat32(tensor.name)).map((d) => LAMBDA * d);
        for (const part of tensor.passes) {
          const gR = stored.reasoning.passes[part.pass]?.get(tensor.name) as Float32Array;
          const gA = stored.agent.passes[part.pass]?.get(tensor.name) as Float32Array;
          // the engine's Δ is θ_edited − θ_I, rounded to float32 once more than λ·δ here: the error
          // bound is relative to Σ|g_j·Δ_j|, not to the (partly cancelling) sum
          expect(Math.abs(part.lossReasoning - dot(gR, update))).toBeLessThan(1e-6 * absDot(gR, update));
          expect(Math.abs(part.lossAgent - dot(gA, update))).toBeLessThan(1e-6 * absDot(gA, update));
          expect(part.gradNormReasoning).toBeCloseTo(Math.sqrt(dot(gR, gR)), 12);
        }
        // g·Δ is linear in g: the passes add up to the summed gradient's ΔL (float32 rounding of the stored sum)
        const combined = dot(stored.reasoning.combined.get(tensor.name) as Float32Array, update);
        const [first, second] = tensor.passes.map((p) => p.lossReasoning) as [number, number];
        expect(Math.abs(first + second - combined)).toBeLessThan(1e-5 * (Math.abs(first) + Math.abs(second)));
        expect(first).not.toBeCloseTo(second, 8);
      }
    } finally {
      await instruct.close();
      await thinking.close();
    }

    // Task Arithmetic's Δ is λ·δ, so its per-pass ΔL is −λ × the per-pass Σs the gate heatmap shows
    // (float32 sums that partly cancel: 1e-4 apart at most, the passes themselves far more).
    const metrics = await call(h, 'getPassMetrics', {});
    for (const pass of [0, 1]) {
      const block = metrics?.blocks.find((b) => b.pass === pass && b.layer === BLOCK.layer && b.group === 'ffn' && b.block === null);
      const total = served.tensors.reduce((sum, t) => sum + (t.passes[pass]?.lossReasoning ?? NaN), 0);
      expect(Math.abs(total + LAMBDA * (block?.sumReasoning ?? NaN))).toBeLessThan(1e-4 * Math.abs(total));
    }

    // CRANE's update is another Δ, the same gradients: its passes still add up to its own ΔL.
    const crane = await call(h, 'getBlockPasses', { block: { layer: 0, group: 'down' }, method: { method: 'crane', settings: DEFAULT_CRANE_SETTINGS } });
    expect(crane?.tensors.map((t) => t.name)).toEqual(['model.layers.0.mlp.down_proj.weight']);
    expect(crane?.tensors[0]?.passes.map((p) => p.lossReasoning)).not.toEqual(served.tensors[2]?.passes.map((p) => p.lossReasoning));
    expect(await codeOf(call(h, 'getBlockPasses', { block: { layer: 9, group: 'ffn' }, method: arithmetic }))).toBe('not-found');
  }, 300_000);

  it('answers null for a dense pair', async () => {
    const h = await harness(join(root, 'dense'));
    await analysed(h);
    expect(await call(h, 'getBlockPasses', { block: BLOCK, method: { method: 'task_arithmetic', lambda: 1 } })).toBeNull();
  }, 300_000);
});
