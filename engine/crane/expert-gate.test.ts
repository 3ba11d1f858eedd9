/**
 * S per routed expert (fine granularity on an MoE layer), against sums worked out by hand; the
 * group-level S (coarse, the reference's rule and the default) is untouched by it.
 */
import { describe, expect, it } from 'vitest';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { craneDelta } from './crane-edit.ts';
import { GateAccumulator } from './gate-accumulator.ts';
import { computeGateTable, resolveScale, type GateTable } from './gate-scales.ts';
import { classifyTensor } from './tensor-classification.ts';

const f = (...v: number[]) => Float32Array.from(v);
const expertTensor = (layer: number, expert: number, projection: string) => `model.layers.${layer}.mlp.experts.${expert}.${projection}_proj.weight`;
const feed = (acc: GateAccumulator, name: string, thetaI: number[], delta: number[], gradR: number[], gradA: number[]) =>
  acc.add(classifyTensor(name), { thetaI: f(...thetaI), delta: f(...delta), gradR: f(...gradR), gradA: f(...gradA) });

/**
 * Layer 0, two experts:
 *   expert 0 gate θ=[3,4] δ=[1,2] g_R=[−1,−1] g_A=[−2,1] → s_R=[1,2], s_A=[2,−2], p=[1,0]
 *   expert 0 down θ=[0] δ=[1] g_R=[−1] g_A=[−1] → p=1
 *     → expert 0: Σp = 2, Σθ² = 25, S_raw = 0.4
 *   expert 1 up θ=[2] δ=[1] g_R=[−1] g_A=[−3] → p=1, Σθ² = 4, S_raw = 0.5
 *   the group: Σp = 3, Σθ² = 29, S_raw = 3/√29; the typical expert of two: 3/√58
 *   → S(expert 0) = 0.4·√58/3, S(expert 1) = 0.5·√58/3; S(expert) = 1 (the reference block).
 */
function handTable(): GateTable {
  const acc = new GateAccumulator();
  feed(acc, expertTensor(0, 0, 'gate'), [3, 4], [1, 2], [-1, -1], [-2, 1]);
  feed(acc, expertTensor(0, 0, 'down'), [0], [1], [-1], [-1]);
  feed(acc, expertTensor(0, 1, 'up'), [2], [1], [-1], [-3]);
  return computeGateTable(acc.blocks(), 'expert');
}

describe('S per routed expert', () => {
  const table = handTable();

  it('pools an expert\'s gate, up and down into one block per layer', () => {
    expect(table.scores.get('expert.0@0')?.sums).toMatchObject({ count: 3, positive: 2, thetaSquared: 25 });
    expect(table.scores.get('expert.1@0')?.sums).toMatchObject({ count: 1, positive: 1, thetaSquared: 4 });
    expect(table.scores.get('expert@0')?.sums).toMatchObject({ count: 4, positive: 3, thetaSquared: 29 });
    expect(table.scores.has('expert.gate@0')).toBe(false);
  });

  it('normalises each expert by the layer\'s typical expert, S_raw(expert)/√n', () => {
    expect(table.scores.get('expert.0@0')?.sRaw).toBeCloseTo(0.4, 15);
    expect(table.scores.get('expert.0@0')?.scale).toBeCloseTo((0.4 * Math.sqrt(58)) / 3, 12);
    expect(table.scores.get('expert.1@0')?.scale).toBeCloseTo((0.5 * Math.sqrt(58)) / 3, 12);
    expect(table.scores.get('expert@0')?.scale).toBe(1);
  });

  it('gives every expert S = 1 when the experts are alike', () => {
    const acc = new GateAccumulator();
    for (const expert of [0, 1, 2, 3]) feed(acc, expertTensor(2, expert, 'gate'), [3, 4], [1, 2], [-1, -1], [-2, 1]);
    const alike = computeGateTable(acc.blocks(), 'expert');
    for (const expert of [0, 1, 2, 3]) expect(alike.scores.get(`expert.${expert}@2`)?.scale).toBeCloseTo(1, 12);
  });

  it('fine granularity edits each expert with its own S; coarse (the default) with the group\'s', () => {
    const upOfExpert1 = classifyTensor(expertTensor(0, 1, 'up'));
    expect(resolveScale(upOfExpert1, table, { granularity: 'fine', overrideScales: {} })).toEqual({ value: table.scores.get('expert.1@0')?.scale, source: 'layer', key: 'expert.1@0' });
    expect(resolveScale(upOfExpert1, table, { granularity: 'coarse', overrideScales: {} })).toEqual({ value: 1, source: 'layer', key: 'expert@0' });
    expect(defaultResolvedSettings({ think: [], special: [] }).granularity).toBe('coarse');
  });

  it('an expert\'s override wins over its group\'s, at either granularity', () => {
    const gateOfExpert0 = classifyTensor(expertTensor(0, 0, 'gate'));
    const overrideScales = { 'expert.0@0': 0.5, 'expert@0': 2 };
    expect(resolveScale(gateOfExpert0, table, { granularity: 'coarse', overrideScales }).value).toBe(0.5);
    expect(resolveScale(classifyTensor(expertTensor(0, 1, 'up')), table, { granularity: 'fine', overrideScales }).value).toBe(2);
  });

  it('a fused expert tensor keeps its projection block, falling back to the group', () => {
    const fused = classifyTensor('model.layers.0.mlp.experts.gate_up_proj');
    expect(resolveScale(fused, table, { granularity: 'fine', overrideScales: {} })).toEqual({ value: 1, source: 'layer', key: 'expert@0' });
  });

  it('craneDelta scales an expert\'s δ by α·S of that expert', () => {
    const settings = { ...defaultResolvedSettings({ think: [], special: [] }), alpha: 0.5, granularity: 'fine' as const, stages: { threshold: false, gate: true, gsp: false } };
    const { delta, scale } = craneDelta(classifyTensor(expertTensor(0, 1, 'up')), [1, 2], f(1, 2), f(3, 1), settings, { gate: table, projector: () => undefined });
    const s = (0.5 * Math.sqrt(58)) / 3;
    expect(scale.key).toBe('expert.1@0');
    expect(delta[0]).toBeCloseTo(0.5 * s * 2, 6);
    expect(delta[1]).toBeCloseTo(0.5 * s * -1, 6);
  });
});
