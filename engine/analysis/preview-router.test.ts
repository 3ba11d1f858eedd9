/**
 * The routers' preview term against editRouter itself: g·(editRouter(θ_I, θ_T, t) − θ_I) summed
 * over routers of every kind the edge rules know (a 2-D router on an arc, one nearly parallel
 * (linear), a 1-D router, a zero side), and in InstantPreview: its own breakdown row, the sum of
 * the rows still the total, the curve through the same values.
 */
import { describe, expect, it } from 'vitest';
import { editRouter } from '../crane/special-tensors.ts';
import { uniformStream } from '../crane/tensor-random-stream.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { InstantPreview } from './preview.ts';
import type { PreviewCurvature } from './preview-curvature.ts';
import { routerFirstOrder, type RouterTerm } from './preview-router.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';

const random = uniformStream(17, 'preview-router');
const values = (n: number) => Float32Array.from({ length: n }, () => random() * 2 - 1);

interface Router { name: string; shape: number[]; thetaI: Float32Array; thetaT: Float32Array; gradR: Float32Array; gradA: Float32Array }

function router(name: string, shape: number[], thetaT: (thetaI: Float32Array) => Float32Array): Router {
  const n = shape.reduce((a, b) => a * b, 1);
  const thetaI = values(n);
  return { name, shape, thetaI, thetaT: thetaT(thetaI), gradR: values(n), gradA: values(n) };
}

const routers: Router[] = [
  router('model.layers.0.mlp.gate.weight', [4, 6], (a) => a.map((v) => v + (random() - 0.5))),
  router('model.layers.1.mlp.gate.weight', [4, 6], (a) => a.map((v) => v * 1.01 + 1e-4 * random())),
  router('model.layers.1.mlp.shared_expert_gate.weight', [6], () => values(6)),
  router('model.layers.2.mlp.gate.weight', [4, 6], (a) => new Float32Array(a.length)),
];

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * (b[i] as number), 0);

function term(r: Router): RouterTerm {
  return {
    name: r.name,
    shape: r.shape,
    products: { dot: dot(r.thetaI, r.thetaT), normI: dot(r.thetaI, r.thetaI), normT: dot(r.thetaT, r.thetaT) },
    gradThetaI: { reasoning: dot(r.gradR, r.thetaI), agent: dot(r.gradA, r.thetaI) },
    gradThetaT: { reasoning: dot(r.gradR, r.thetaT), agent: dot(r.gradA, r.thetaT) },
  };
}

/** Σ g·(editRouter − θ_I) at α, as the export computes θ_M. */
function direct(alpha: number, fraction: number): { reasoning: number; agent: number } {
  let reasoning = 0;
  let agent = 0;
  for (const r of routers) {
    const moved = editRouter(r.thetaI, r.thetaT, r.shape, alpha, { routerAlphaFraction: fraction });
    moved.forEach((v, i) => {
      reasoning += (r.gradR[i] as number) * (v - (r.thetaI[i] as number));
      agent += (r.gradA[i] as number) * (v - (r.thetaI[i] as number));
    });
  }
  return { reasoning, agent };
}

describe('the routers\' SLERP first order', () => {
  for (const alpha of [0.01, 0.15, 1]) {
    it(`equals g·(editRouter − θ_I) over every edge rule at α ${alpha}`, () => {
      const predicted = routerFirstOrder(routers.map(term), alpha / 3);
      const expected = direct(alpha, 1 / 3);
      expect(predicted.reasoning).toBeCloseTo(expected.reasoning, 5);
      expect(predicted.agent).toBeCloseTo(expected.agent, 5);
      expect(Math.abs(expected.reasoning)).toBeGreaterThan(1e-4);
    });
  }

  it('is its own breakdown row in the preview, and the rows still sum to the total', () => {
    const analysis = tinyAnalysis(5);
    const defaults = defaultResolvedSettings({ think: [], special: [] });
    const curvature: PreviewCurvature = {
      basis: { keepQuantile: 0.5, tau: defaults.tau, steepness: defaults.steepness, threshold: true, gsp: true },
      anchorSpecial: { thinkRows: 0.8, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3 },
      directions: [], epsilon: [], firstOrder: { reasoning: [], agent: [] }, hessian: { reasoning: [], agent: [] },
      routers: routers.map(term), anchors: [], split: 'train',
    };
    const preview = new InstantPreview(analysis.coefficients, analysis.gate, curvature);
    const settings = { ...defaults, alpha: 0.4, special: { ...defaults.special, routerAlphaFraction: 0.5 } };
    const result = preview.evaluate(settings, Float64Array.of(0, 0.4, 0.9));
    const row = result.breakdown.find((t) => t.group === 'router');
    expect(row?.firstOrder.reasoning).toBeCloseTo(direct(0.4, 0.5).reasoning, 5);
    expect(row?.secondOrder).toEqual({ reasoning: 0, agent: 0 });
    const sum = (pick: (t: (typeof result.breakdown)[number]) => number) => result.breakdown.reduce((s, t) => s + pick(t), 0);
    expect(sum((t) => t.firstOrder.reasoning + t.secondOrder.reasoning)).toBeCloseTo(result.deltaLossReasoning, 10);
    expect(sum((t) => t.firstOrder.agent + t.secondOrder.agent)).toBeCloseTo(result.deltaLossAgent, 10);
    const without = new InstantPreview(analysis.coefficients, analysis.gate).evaluate(settings);
    expect(result.deltaLossReasoning - without.deltaLossReasoning).toBeCloseTo(row?.firstOrder.reasoning ?? Number.NaN, 10);
    [0, 0.4, 0.9].forEach((alpha, i) => {
      expect(result.curve.deltaLossAgent[i]).toBeCloseTo(preview.evaluate({ ...settings, alpha }).deltaLossAgent, 10);
    });
  });
});
