import { describe, expect, it } from 'vitest';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { craneDelta, craneEdit, type CraneContext } from './crane-edit.ts';
import type { GspProjector } from './gsp-projector.ts';
import { classifyTensor } from './tensor-classification.ts';
import { editPair } from './tensor-pair.ts';

const f = (...v: number[]) => Float32Array.from(v);
const Q = 'model.layers.0.self_attn.q_proj.weight';
// 1 × 4 weight: δ = (1, −3, 0.5, 2); lower median of |δ| = 1 → T(δ) = (0, −6, 0, 4).
const thetaI = f(1, 1, 1, 1);
const thetaT = f(2, -2, 1.5, 3);
// Protect e₁ (coordinate 1) completely: σ = (1) → w ≈ 1 at τ = 0.03.
const protectE1: GspProjector = { dim: 4, rank: 1, basis: f(0, 1, 0, 0), sigma: Float64Array.of(1) };

const base: ResolvedCraneSettings = { ...defaultResolvedSettings({ think: [], special: [] }), alpha: 0.5, stages: { threshold: true, gate: false, gsp: false } };
const none: CraneContext = { gate: null, projector: () => undefined };
const deltaOf = (settings: ResolvedCraneSettings, context: CraneContext = none, name = Q, shape = [1, 4]) =>
  Array.from(craneDelta(classifyTensor(name), shape, thetaI, thetaT, settings, context).delta);

describe('craneDelta stage toggles', () => {
  it('T on, gate off, GSP off: α·T(δ)', () => {
    expect(deltaOf(base)).toEqual([0, -3, 0, 2]);
  });

  it('T off: α·δ', () => {
    expect(deltaOf({ ...base, stages: { ...base.stages, threshold: false } })).toEqual([0.5, -1.5, 0.25, 1]);
  });

  it('GSP on removes the protected direction (w = sigmoid(4.6/0.03·0.97) ≈ 1)', () => {
    const withGsp = deltaOf({ ...base, stages: { ...base.stages, gsp: true } }, { gate: null, projector: (k) => (k === 'layer_0_attn_input' ? protectE1 : undefined) });
    expect(withGsp[0]).toBe(0);
    expect(withGsp[1]).toBeCloseTo(0, 6);
    expect(withGsp[3]).toBe(2);
  });

  it('an override of S applies; S = 0 leaves θ_I', () => {
    expect(deltaOf({ ...base, overrideScales: { 'attention@0': 2 } })).toEqual([0, -6, 0, 4]);
    expect(deltaOf({ ...base, overrideScales: { 'attention.q@0': 0 } })).toEqual([0, 0, 0, 0]);
  });

  it('reports a missing projector and a width mismatch instead of projecting', () => {
    const gsp = { ...base, stages: { ...base.stages, gsp: true } };
    expect(craneDelta(classifyTensor(Q), [1, 4], thetaI, thetaT, gsp, none).note).toMatch(/no projector layer_0_attn_input/);
    const narrow: CraneContext = { gate: null, projector: () => ({ ...protectE1, dim: 2, basis: f(0, 1) }) };
    expect(craneDelta(classifyTensor(Q), [1, 4], thetaI, thetaT, gsp, narrow).note).toMatch(/input side 4 ≠ projector/);
  });

  it('never projects o_proj, even with GSP on and a projector present', () => {
    const context: CraneContext = { gate: null, projector: () => protectE1 };
    const gsp = { ...base, stages: { ...base.stages, gsp: true } };
    expect(craneDelta(classifyTensor('model.layers.0.self_attn.o_proj.weight'), [1, 4], thetaI, thetaT, gsp, context).projectedWith).toBeNull();
  });
});

describe('craneEdit through editPair', () => {
  const edit = craneEdit(base, none);
  const side = (values: Float32Array, shape = [1, 4]) => ({ shape, values });

  it('θ_M = θ_I + α·S·T(δ) for a layer tensor', () => {
    expect(Array.from(editPair({ name: Q, instruct: side(thetaI), thinking: side(thetaT) }, edit).values)).toEqual([1, -2, 1, 3]);
  });

  it('gives the same values with the inputs handed over, writing no input without (layer tensor, embedding, lm_head)', () => {
    const tokens = { ...base, tokens: { ...base.tokens, think: [1, 5], special: [0, 1] } };
    for (const [name, settings] of [[Q, base], [Q, { ...base, stages: { ...base.stages, threshold: false } }], ['model.embed_tokens.weight', tokens], ['lm_head.weight', tokens]] as const) {
      const [i, t] = [Float32Array.from(thetaI), Float32Array.from(thetaT)];
      const kept = editPair({ name, instruct: side(i, [2, 2]), thinking: side(t, [2, 2]) }, craneEdit(settings, none)).values;
      expect([...i, ...t]).toEqual([...thetaI, ...thetaT]);
      expect([...editPair({ name, instruct: side(i, [2, 2]), thinking: side(t, [2, 2]) }, craneEdit(settings, none), true).values]).toEqual([...kept]);
    }
  });

  it('copies the side that has a tensor missing on the other', () => {
    expect(editPair({ name: Q, instruct: side(thetaI) }, edit)).toMatchObject({ outcome: 'instruct-only', values: thetaI });
    expect(editPair({ name: Q, thinking: side(thetaT) }, edit)).toMatchObject({ outcome: 'thinking-only', values: thetaT });
  });

  it('keeps θ_I on a shape mismatch and says so', () => {
    const result = editPair({ name: Q, instruct: side(thetaI), thinking: side(thetaT, [4, 1]) }, edit);
    expect(result.outcome).toBe('shape-mismatch');
    expect(result.values).toBe(thetaI);
    expect(result.note).toMatch(/\[1, 4\] \(Instruct\) vs \[4, 1\] \(Thinking\)/);
  });

  it('routes routers to SLERP with t = α/3 regardless of the stage toggles', () => {
    const router = 'model.layers.0.mlp.gate.weight';
    const out = editPair({ name: router, instruct: side(f(1, 0, 0, 0)), thinking: side(f(0, 1, 0, 0)) }, craneEdit({ ...base, alpha: 1.5 }, none)).values;
    expect(out[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(out[1]).toBeCloseTo(Math.SQRT1_2, 6);
  });
});
