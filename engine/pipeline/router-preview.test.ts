/**
 * The routers' preview term on a tiny analysed Qwen3-MoE pair, against measured losses: the
 * curvature stage's router products (gradients through the MoE runtime's router) predict what
 * SLERPing only the routers does to L_R and L_A at small α, checked by a central difference of
 * the losses of real edited models (editRouter through editedWeightSource, scored by
 * sequenceLosses on the gradients' train sequences) where no token's top-k choice flips. And the preview's breakdown on this real
 * analysis, router row included, sums to its total.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstantPreview } from '../analysis/preview.ts';
import type { PreviewCurvature } from '../analysis/preview-curvature.ts';
import { routerFirstOrder } from '../analysis/preview-router.ts';
import { editRouter } from '../crane/special-tensors.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { initBackend } from '../tensor/backend.ts';
import { editedWeightSource } from './edited-source.ts';
import type { AnalysisRun } from './run-analysis.ts';
import { analysedCurvature } from './testing/analysed-curvature.ts';

const FRACTION = 1 / 3;
let root: string;
let run: AnalysisRun;
let curvature: PreviewCurvature;
let instruct: Checkpoint;
let thinking: Checkpoint;
let batches: Record<'reasoning' | 'agent', LossSequence[]>;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-router-preview-'));
  ({ project: { run }, curvature, instruct, thinking, batches } = await analysedCurvature(root, { model: { moe: { experts: 4, perToken: 2, inner: 8 } }, noise: 0.05 }));
}, 600_000);

afterAll(async () => {
  await instruct.close();
  await thinking.close();
  await rm(root, { recursive: true, force: true });
});

/** Only the routers moved: SLERP(θ_I, θ_T, α·FRACTION); every other tensor θ_I. */
const routersOnly = (alpha: number): PairedEdit => (name, shape, thetaI, thetaT) =>
  (classifyTensor(name).rule === 'router' ? { values: editRouter(thetaI, thetaT, shape, alpha, { routerAlphaFraction: FRACTION }) } : { values: thetaI });

async function loss(alpha: number, set: 'reasoning' | 'agent'): Promise<number> {
  const scores = await loadCausalLM(editedWeightSource(instruct, thinking, routersOnly(alpha))).sequenceLosses(batches[set]);
  return scores.reduce((sum, s) => sum + s.loss, 0) / scores.length;
}

describe('routers in the preview (tiny Qwen3-MoE)', () => {
  it('keeps every router\'s gradient products from the analysis', () => {
    expect(curvature.routers.map((r) => r.name)).toEqual(['model.layers.0.mlp.gate.weight', 'model.layers.1.mlp.gate.weight']);
    for (const r of curvature.routers) expect(Math.abs(r.gradThetaT.reasoning - r.gradThetaI.reasoning)).toBeGreaterThan(0);
  });

  for (const set of ['reasoning', 'agent'] as const) {
    it(`predicts the measured ΔL of SLERPing the routers at small α (${set}, central difference)`, async () => {
      // Small enough that no token changes its top-k experts: at α 0.03 one agent token does,
      // and the measured loss jumps by ~3e-3 where the first order says −8e-5.
      const alpha = 0.01;
      const measured = (await loss(alpha, set) - await loss(-alpha, set)) / 2;
      const predicted = (routerFirstOrder(curvature.routers, alpha * FRACTION)[set] - routerFirstOrder(curvature.routers, -alpha * FRACTION)[set]) / 2;
      expect(Math.abs(measured)).toBeGreaterThan(1e-5);
      expect(Math.abs(predicted - measured)).toBeLessThan(0.02 * Math.abs(measured));
    }, 120_000);
  }

  it('shows the routers as their own row of a breakdown that sums to the total', () => {
    const preview = new InstantPreview(run.artifacts.coefficients, run.artifacts.gate, curvature);
    const defaults = defaultResolvedSettings({ think: [], special: [] });
    const result = preview.evaluate({ ...defaults, keepQuantile: curvature.basis.keepQuantile, alpha: 0.3 });
    const row = result.breakdown.find((t) => t.group === 'router');
    expect(row?.firstOrder.reasoning).toBeCloseTo(routerFirstOrder(curvature.routers, 0.3 * defaults.special.routerAlphaFraction).reasoning, 12);
    const sum = (pick: (t: (typeof result.breakdown)[number]) => number) => result.breakdown.reduce((s, t) => s + pick(t), 0);
    expect(sum((t) => t.firstOrder.reasoning + t.secondOrder.reasoning)).toBeCloseTo(result.deltaLossReasoning, 10);
    expect(sum((t) => t.firstOrder.agent + t.secondOrder.agent)).toBeCloseTo(result.deltaLossAgent, 10);
    expect(sum((t) => t.firstOrder.agent)).toBeCloseTo(result.firstOrder.agent, 10);
  });
});
