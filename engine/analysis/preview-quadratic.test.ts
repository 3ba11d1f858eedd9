/**
 * The preview with curvature against a direct computation on the tiny random pair: every tensor
 * the edit moves (layers, embedding think rows, lm_head, final norm) dotted with its gradient
 * through craneEdit itself, plus ½ cᵀMc with each c_b resolved by resolveScale. M is a made-up
 * symmetric matrix here: what it is measured from is engine/pipeline/curvature-stage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { craneEdit, type CraneContext } from '../crane/crane-edit.ts';
import { editDirections } from '../crane/edit-directions.ts';
import { wholeDeltas } from '../crane/testing/whole-deltas.ts';
import { resolveScale } from '../crane/gate-scales.ts';
import { classifyTensor, type LayerGroup } from '../crane/tensor-classification.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { factorDense } from './curvature-operator.ts';
import { InstantPreview } from './preview.ts';
import type { PreviewCurvature } from './preview-curvature.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';

const analysis = tinyAnalysis(2026);
const tensors = analysis.pair.tensors;
const context: CraneContext = { gate: analysis.gate, projector: (key) => analysis.projectors.get(key) };
const tokens = { think: [1, 4], special: [2, 5] };
const defaults = defaultResolvedSettings(tokens);
const basis = editDirections(tensors.map((t) => t.name), defaults, tokens, context);
const B = basis.directions.length;

/** g·Δ_b from the pair's own gradients, and M = JᵀJ − 0.3·I (symmetric, of both signs). */
function curvature(anchors: PreviewCurvature['anchors']): PreviewCurvature {
  const firstOrder = { reasoning: new Array<number>(B).fill(0), agent: new Array<number>(B).fill(0) };
  for (const t of tensors) {
    for (const { direction, delta } of wholeDeltas(basis, t.name, t.shape, t.thetaI, t.thetaT)) {
      delta.forEach((d, i) => {
        firstOrder.reasoning[direction] = (firstOrder.reasoning[direction] as number) + (t.gradR[i] as number) * d;
        firstOrder.agent[direction] = (firstOrder.agent[direction] as number) + (t.gradA[i] as number) * d;
      });
    }
  }
  const matrix = (seed: number) => {
    const j = Array.from({ length: B * B }, (_, i) => Math.sin(seed * (i + 1)));
    return Array.from({ length: B * B }, (_, at) => {
      const [r, c] = [Math.floor(at / B), at % B];
      let sum = r === c ? -0.3 : 0;
      for (let k = 0; k < B; k++) sum += (j[k * B + r] as number) * (j[k * B + c] as number);
      return sum;
    });
  };
  return {
    basis: { keepQuantile: 0.5, tau: defaults.tau, steepness: defaults.steepness, threshold: true, gsp: true },
    anchorSpecial: { thinkRows: defaults.special.thinkRows, lmHeadScale: defaults.special.lmHeadScale, routerAlphaFraction: defaults.special.routerAlphaFraction },
    directions: basis.directions,
    epsilon: new Array<number>(B).fill(0.25),
    firstOrder,
    hessian: { reasoning: matrix(1.7), agent: matrix(0.3) },
    routers: [],
    anchors,
    split: 'train',
  };
}

/** Σ_tensors g·(θ_M − θ_I) through craneEdit, plus ½ cᵀMc. */
function direct(settings: ResolvedCraneSettings, model: PreviewCurvature): { reasoning: number; agent: number } {
  const edit = craneEdit(settings, context);
  let reasoning = 0;
  let agent = 0;
  for (const t of tensors) {
    const moved = edit(t.name, t.shape, t.thetaI, t.thetaT).values;
    moved.forEach((v, i) => {
      reasoning += (t.gradR[i] as number) * (v - (t.thetaI[i] as number));
      agent += (t.gradA[i] as number) * (v - (t.thetaI[i] as number));
    });
  }
  const c = model.directions.map((d) => {
    if (d.coefficient === 'think-rows') return settings.special.thinkRows;
    if (d.coefficient === 'lm-head-scale') return settings.special.lmHeadScale;
    const [group, layer] = d.key.split('@') as [LayerGroup, string];
    const tensor = d.group === 'final_norm' ? classifyTensor('model.norm.weight') : { ...classifyTensor(`model.layers.${layer}.x`), group, block: group };
    return settings.alpha * resolveScale(tensor, settings.stages.gate ? analysis.gate : null, settings).value;
  });
  const quadratic = (m: readonly number[]) => 0.5 * c.reduce((sum, ci, i) => sum + ci * c.reduce((row, cj, j) => row + (m[i * B + j] as number) * cj, 0), 0);
  const dense = model.hessian;
  if (dense === undefined) throw new Error('the direct computation takes a dense curvature');
  return { reasoning: reasoning + quadratic(dense.reasoning), agent: agent + quadratic(dense.agent) };
}

const model = curvature([]);
const preview = new InstantPreview(analysis.coefficients, analysis.gate, model);

const cases: [string, ResolvedCraneSettings][] = [
  ['the defaults', defaults],
  ['α 0.7, think rows 0.5, lm_head 0.1', { ...defaults, alpha: 0.7, special: { ...defaults.special, thinkRows: 0.5, lmHeadScale: 0.1 } }],
  ['overrides, the global norm one reaching the final norm', { ...defaults, overrideScales: { 'attention@0': 2, 'norm@*': 0.4 } }],
  ['gate off', { ...defaults, stages: { threshold: true, gate: false, gsp: true } }],
];

describe('InstantPreview with curvature vs a direct computation on the tiny pair', () => {
  it('has a direction per coarse layer block, the final norm, the think rows and the lm_head blend', () => {
    expect(basis.directions.map((d) => d.key)).toEqual(['embed.think', 'norm@0', 'attention@0', 'ffn@0', 'norm@1', 'attention@1', 'ffn@1', 'final_norm', 'lm_head.think', 'lm_head.blend']);
  });

  for (const [label, settings] of cases) {
    it(`covers every edited tensor and the curvature: ${label}`, () => {
      const expected = direct(settings, model);
      const result = preview.evaluate(settings);
      expect(result.deltaLossReasoning).toBeCloseTo(expected.reasoning, 5);
      expect(result.deltaLossAgent).toBeCloseTo(expected.agent, 5);
      expect(result.curvature).toEqual({ state: 'current', staleReasons: [] });
    });
  }

  it('splits the total into per-group terms that sum to it, first order apart', () => {
    const result = preview.evaluate(cases[1]?.[1] ?? defaults);
    expect(result.breakdown.map((t) => t.group)).toEqual(['attention', 'ffn', 'norm', 'final_norm', 'embed_think', 'lm_head_think', 'lm_head_blend']);
    const sum = (pick: (t: (typeof result.breakdown)[number]) => number) => result.breakdown.reduce((s, t) => s + pick(t), 0);
    expect(sum((t) => t.firstOrder.reasoning + t.secondOrder.reasoning)).toBeCloseTo(result.deltaLossReasoning, 10);
    expect(sum((t) => t.firstOrder.agent + t.secondOrder.agent)).toBeCloseTo(result.deltaLossAgent, 10);
    expect(sum((t) => t.firstOrder.reasoning)).toBeCloseTo(result.firstOrder.reasoning, 10);
    expect(result.breakdown.find((t) => t.group === 'embed_think')?.firstOrder.reasoning).not.toBe(0);
  });

  it('draws the curve through the values the same settings give at each α', () => {
    const alphas = Float64Array.of(0, 0.3, 1.2);
    const result = preview.evaluate(defaults, alphas);
    alphas.forEach((alpha, i) => {
      const at = preview.evaluate({ ...defaults, alpha });
      expect(result.curve.deltaLossReasoning[i]).toBeCloseTo(at.deltaLossReasoning, 10);
      expect(result.curve.deltaLossAgent[i]).toBeCloseTo(at.deltaLossAgent, 10);
      expect(result.curve.firstOrderAgent[i]).toBeCloseTo(at.firstOrder.agent, 10);
    });
  });

  it('keeps the first order exact and calls the curvature stale at another τ', () => {
    const settings = { ...defaults, tau: 0.2 };
    const result = preview.evaluate(settings);
    expect(result.curvature).toEqual({ state: 'stale', staleReasons: ['τ 0.2 (curvature at 0.03)'] });
    expect(result.deltaLossReasoning).toBeCloseTo(direct(settings, model).reasoning, 5);
    expect(preview.evaluate({ ...defaults, stages: { threshold: false, gate: true, gsp: true } }).curvature).toMatchObject({ staleReasons: ['thresholding off (curvature measured with it on)'] });
  });

  it('trusts α up to the last measured anchor that agrees (ΔL_R within 10%, ΔL_A of the same sign)', () => {
    const at = (alpha: number) => direct({ ...defaults, alpha }, model);
    const off = at(1);
    const anchored = new InstantPreview(analysis.coefficients, analysis.gate, curvature([
      { alpha: 0.25, measured: at(0.25) },
      { alpha: 0.5, measured: { reasoning: at(0.5).reasoning * 1.05, agent: -at(0.5).agent } },
      { alpha: 1, measured: { reasoning: off.reasoning * 1.5 + 1, agent: off.agent } },
    ]));
    const range = anchored.evaluate(defaults).range;
    expect(range?.trustedUpTo).toBe(0.25);
    expect(range?.anchors.map((a) => a.agrees)).toEqual([true, false, false]);
    expect(range?.anchors[0]?.predicted.reasoning).toBeCloseTo(at(0.25).reasoning, 5);
    expect(preview.evaluate(defaults).range).toBeNull();
  });

  it('gives the same preview from the full-rank low-rank form as from the dense matrix', () => {
    const dense = model.hessian;
    if (dense === undefined) throw new Error('the fixture is dense');
    const lowRank = { reasoning: factorDense(dense.reasoning, B, B), agent: factorDense(dense.agent, B, B) };
    const factored = new InstantPreview(analysis.coefficients, analysis.gate, { ...model, hessian: undefined, lowRank });
    for (const [, settings] of cases) {
      const expected = preview.evaluate(settings);
      const result = factored.evaluate(settings);
      expect(result.deltaLossReasoning).toBeCloseTo(expected.deltaLossReasoning, 10);
      expect(result.deltaLossAgent).toBeCloseTo(expected.deltaLossAgent, 10);
    }
  });

  it('answers first order over the layer tensors alone without curvature', () => {
    const plain = new InstantPreview(analysis.coefficients, analysis.gate).evaluate(defaults);
    expect(plain.curvature).toEqual({ state: 'absent' });
    expect(plain.breakdown.map((t) => t.group)).toEqual(['attention', 'ffn', 'norm']);
    expect(plain.deltaLossReasoning).toBeCloseTo(plain.firstOrder.reasoning, 12);
  });
});
