/**
 * The preview against a direct computation: build the edited Δ with craneDelta (same settings,
 * same gate table and projectors) on a tiny random pair, and sum g·Δ explicitly.
 */
import { describe, expect, it } from 'vitest';
import { craneDelta, type CraneContext } from '../crane/crane-edit.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { InstantPreview, type PreviewSettings } from './preview.ts';
import { PreviewCoefficientBuilder, type PreviewCoefficients } from './preview-coefficients.ts';
import { tinyAnalysis } from './testing/tiny-analysis.ts';

const analysis = tinyAnalysis(2026);
const context: CraneContext = { gate: analysis.gate, projector: (key) => analysis.projectors.get(key) };
const preview = new InstantPreview(analysis.coefficients, analysis.gate);

const base: PreviewSettings = defaultResolvedSettings({ think: [], special: [] });

function edited(settings: PreviewSettings) {
  return analysis.scored.map((t) => ({
    t,
    result: craneDelta(classifyTensor(t.name), t.shape, t.thetaI, t.thetaT, settings, context),
  }));
}

function directLosses(settings: PreviewSettings): { reasoning: number; agent: number; scale: number } {
  let reasoning = 0;
  let agent = 0;
  let scale = 0;
  for (const { t, result } of edited(settings)) {
    result.delta.forEach((d, i) => {
      reasoning += (t.gradR[i] as number) * d;
      agent += (t.gradA[i] as number) * d;
      scale += Math.abs(t.gradR[i] as number) * Math.abs(d) + Math.abs(t.gradA[i] as number) * Math.abs(d);
    });
  }
  return { reasoning, agent, scale };
}

const cases: [string, PreviewSettings][] = [
  ['all stages on', base],
  ['α = 1.3, τ = 0.2, k = 9', { ...base, alpha: 1.3, tau: 0.2, steepness: 9 }],
  ['threshold off', { ...base, stages: { threshold: false, gate: true, gsp: true } }],
  ['GSP off', { ...base, stages: { threshold: true, gate: true, gsp: false } }],
  ['gate off', { ...base, stages: { threshold: true, gate: false, gsp: true } }],
  ['all stages off', { ...base, stages: { threshold: false, gate: false, gsp: false } }],
  ['fine granularity', { ...base, granularity: 'fine' }],
  ['overrides (coarse, fine and global keys)', { ...base, overrideScales: { 'attention@0': 2.5, 'ffn.up@1': 0, 'norm@*': 0.7 } }],
  ['τ = 0.9 (almost everything passes)', { ...base, tau: 0.9 }],
];

describe('InstantPreview vs g·craneDelta on a tiny random pair', () => {
  for (const [label, settings] of cases) {
    it(`matches to 1e-6 relative: ${label}`, () => {
      const direct = directLosses(settings);
      const predicted = preview.evaluate(settings);
      expect(direct.scale).toBeGreaterThan(0);
      // Relative to Σ|g||Δ|: the float32 rounding of craneDelta's Δ is the only difference.
      expect(Math.abs(predicted.deltaLossReasoning - direct.reasoning)).toBeLessThan(1e-6 * direct.scale);
      expect(Math.abs(predicted.deltaLossAgent - direct.agent)).toBeLessThan(1e-6 * direct.scale);
    });
  }

  it('reports α·S per block as craneDelta resolves it', () => {
    for (const granularity of ['coarse', 'fine'] as const) {
      const settings = { ...base, granularity, overrideScales: { 'attention@1': 3 } };
      const result = preview.evaluate(settings);
      for (const { t, result: delta } of edited(settings)) {
        const cls = classifyTensor(t.name);
        const key = `${cls.group}${granularity === 'fine' ? `.${cls.block}` : ''}@${cls.layer}`;
        expect(result.effectiveScale[result.blocks.indexOf(key)]).toBeCloseTo(settings.alpha * delta.scale.value, 12);
      }
    }
  });

  it('reports the retained update-norm fraction ‖Π(U)‖²/‖U‖² per block', () => {
    const on = edited({ ...base, stages: { threshold: true, gate: false, gsp: true } });
    const off = edited({ ...base, stages: { threshold: true, gate: false, gsp: false } });
    const sums = new Map<string, { kept: number; total: number }>();
    on.forEach(({ t, result }, index) => {
      const cls = classifyTensor(t.name);
      const key = `${cls.group}@${cls.layer}`;
      const entry = sums.get(key) ?? { kept: 0, total: 0 };
      result.delta.forEach((d) => (entry.kept += d * d));
      off[index]?.result.delta.forEach((d) => (entry.total += d * d));
      sums.set(key, entry);
    });
    const result = preview.evaluate(base);
    for (const [key, { kept, total }] of sums) expect(result.retainedFraction[result.blocks.indexOf(key)]).toBeCloseTo(kept / total, 6);
    expect(result.retainedFraction[result.blocks.indexOf('attention@0')]).toBeLessThan(1);
    expect(result.retainedFraction[result.blocks.indexOf('norm@0')]).toBe(1);
  });

  it('gives a curve linear in α that passes through the current point', () => {
    const result = preview.evaluate(base, Float64Array.of(0, 0.25, 1));
    expect(Array.from(result.curve.deltaLossReasoning)).toEqual([0, result.deltaLossReasoning, 4 * result.deltaLossReasoning].map((v) => expect.closeTo(v, 12)));
    expect(result.curve.deltaLossAgent[1]).toBeCloseTo(result.deltaLossAgent, 12);
  });

  it('refuses a keep-quantile the coefficients were not computed at, unless thresholding is off', () => {
    expect(() => preview.evaluate({ ...base, keepQuantile: 0.6 })).toThrow(/computed at keep-quantile 0.5/);
    expect(() => preview.evaluate({ ...base, keepQuantile: 0.6, stages: { threshold: false, gate: true, gsp: true } })).not.toThrow();
  });
});

describe('PreviewCoefficientBuilder', () => {
  it('accepts only crane-rule tensors inside decoder layers (gradients exist only there; routers are SLERP)', () => {
    const builder = new PreviewCoefficientBuilder(0.5, () => undefined);
    const inputs = { delta: Float32Array.of(1, 2), gradR: Float32Array.of(1, 1), gradA: Float32Array.of(1, 1) };
    expect(() => builder.add(classifyTensor('model.norm.weight'), [2], inputs)).toThrow(/only crane-rule tensors inside decoder layers/);
    expect(() => builder.add(classifyTensor('model.layers.0.mlp.gate.weight'), [1, 2], inputs)).toThrow(/only crane-rule/);
  });

  it('keeps one entry per fine block and projector', () => {
    const entries = analysis.coefficients.entries;
    expect(entries.find((e) => e.group === 'attention' && e.block === 'q' && e.layer === 0)).toMatchObject({ projector: 'layer_0_attn_input', tensors: 1, coordinates: 16 });
    expect(entries.filter((e) => e.projector !== null)).toHaveLength(2 * 5); // q, k, v, gate, up per layer
  });

  it('sums one routed expert\'s gate and up into one entry, another expert into its own', () => {
    const projector = analysis.projectors.get('layer_0_ffn_input');
    const builder = new PreviewCoefficientBuilder(0.5, () => projector);
    const v = (...x: number[]) => Float32Array.from(x);
    const gateInputs = { delta: v(0.5, -1, 0.25, 2), gradR: v(1, 0.5, -1, 0.2), gradA: v(-0.3, 0.1, 0.7, 1) };
    const experts = [
      { name: 'model.layers.0.mlp.experts.0.gate_proj.weight', inputs: gateInputs },
      { name: 'model.layers.0.mlp.experts.0.up_proj.weight', inputs: { delta: v(-2, 0.1, 1, 0.3), gradR: v(0.2, -0.4, 0.6, 0.8), gradA: v(1, 1, -1, 0.5) } },
    ];
    const single = experts.map(({ name, inputs }) => {
      const one = new PreviewCoefficientBuilder(0.5, () => projector);
      one.add(classifyTensor(name), [1, 4], inputs);
      return one.build();
    });
    for (const { name, inputs } of experts) builder.add(classifyTensor(name), [1, 4], inputs);
    builder.add(classifyTensor('model.layers.0.mlp.experts.1.gate_proj.weight'), [1, 4], gateInputs);
    const both = builder.build();
    expect(both.entries).toEqual([
      expect.objectContaining({ group: 'expert', block: '0', tensors: 2, coordinates: 8, projector: 'layer_0_ffn_input' }),
      expect.objectContaining({ group: 'expert', block: '1', tensors: 1, coordinates: 4, projector: 'layer_0_ffn_input' }),
    ]);
    const [gate, up] = single as [PreviewCoefficients, PreviewCoefficients];
    const [scalars, directions] = [gate.scalars.length, gate.directions.length];
    both.scalars.subarray(0, scalars).forEach((v, i) => expect(v).toBeCloseTo((gate.scalars[i] as number) + (up.scalars[i] as number), 12));
    both.directions.subarray(0, directions).forEach((v, i) => expect(v).toBeCloseTo((gate.directions[i] as number) + (up.directions[i] as number), 12));
    expect(both.scalars.subarray(scalars)).toEqual(gate.scalars);
    expect(both.directions.subarray(directions)).toEqual(gate.directions);
  });
});
