import { describe, expect, it } from 'vitest';
import { GateAccumulator } from '../crane/gate-accumulator.ts';
import { computeGateTable } from '../crane/gate-scales.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { expertMetricsSchema } from '../protocol/expert-schemas.ts';
import { expertMetrics } from './expert-metrics.ts';
import type { RouterStats } from './router-stats.ts';

const f = (...v: number[]) => Float32Array.from(v);

/** Layer 0 dense (an mlp_only layer), layer 1 with experts 0 and 2 scored (θ=[2] δ=[1] g_R=[−1] g_A=[−3]: p = 1, S_raw = 0.5 each). */
function table() {
  const acc = new GateAccumulator();
  const one = { thetaI: f(2), delta: f(1), gradR: f(-1), gradA: f(-3) };
  acc.add(classifyTensor('model.layers.0.mlp.up_proj.weight'), one);
  acc.add(classifyTensor('model.layers.1.mlp.experts.0.up_proj.weight'), one);
  acc.add(classifyTensor('model.layers.1.mlp.experts.2.gate_proj.weight'), { ...one, gradA: f(1) });
  return computeGateTable(acc.blocks(), 'expert');
}

const STATS: RouterStats = {
  format: 'crane-router-stats',
  version: 1,
  numExperts: 3,
  expertsPerToken: 2,
  sets: {
    reasoning: { tokens: 5, layers: [{ layer: 1, routed: [4, 1, 5], meanProbability: [0.4, 0.1, 0.5] }] },
    agent: { tokens: 2, layers: [{ layer: 1, routed: [0, 2, 2], meanProbability: [0.05, 0.5, 0.45] }] },
  },
};

describe('expertMetrics', () => {
  it('lays S per expert and the router statistics out as layers × experts, NaN where a layer has none', () => {
    const metrics = expertMetrics(table(), STATS, 2);
    expect(expertMetricsSchema.safeParse(metrics).success).toBe(true);
    expect(metrics).toMatchObject({ layers: 2, experts: 3, expertsPerToken: 2 });
    // Expert 0: p = 1; expert 2: s_A = −1 → p = 0. Group S_raw = 1/√8, typical expert (1/√8)/√2 = 0.25 → S = 0.5/0.25 = 2 and 0.
    expect(Array.from(metrics?.gate.values ?? [])).toEqual([NaN, NaN, NaN, 2, NaN, 0]);
    expect(Array.from(metrics?.sumReasoning.values ?? []).slice(3)).toEqual([1, NaN, 1]);
    expect(metrics?.routing.reasoning?.tokens).toBe(5);
    expect(Array.from(metrics?.routing.reasoning?.routed.values ?? [])).toEqual([NaN, NaN, NaN, 4, 1, 5]);
    expect(Array.from(metrics?.routing.agent?.meanProbability.values ?? []).slice(3)).toEqual([0.05, 0.5, 0.45].map(Math.fround));
    expect(metrics?.routing.format).toBeNull();
  });

  it('is null for a model without routed experts, and has no routing without router statistics', () => {
    const acc = new GateAccumulator();
    acc.add(classifyTensor('model.layers.0.mlp.up_proj.weight'), { thetaI: f(1), delta: f(1), gradR: f(-1), gradA: f(-1) });
    expect(expertMetrics(computeGateTable(acc.blocks(), 'ffn'), undefined, 1)).toBeNull();
    const metrics = expertMetrics(table(), undefined, 2);
    expect(metrics?.routing).toEqual({ reasoning: null, agent: null, format: null });
    expect(metrics?.experts).toBe(3);
  });
});
