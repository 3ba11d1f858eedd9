import { describe, expect, it } from 'vitest';
import type { ExpertMetrics } from '../../store/experts-slice.ts';
import { expertGate, expertHeatmapData, expertMatrix, expertOfBlock, routedShare, withExpertBlocks } from './expert-data.ts';

const m = (...values: number[]) => ({ rows: 1, cols: 3, values: new Float32Array(values) });

/** One layer, three experts, top-2: D_R's 5 tokens fill 10 routing slots, D_A's 2 tokens 4. */
const METRICS: ExpertMetrics = {
  layers: 1,
  experts: 3,
  expertsPerToken: 2,
  gate: m(1, 0.5, 2),
  sumReasoning: m(1, 2, 3),
  sumAgent: m(-1, 0, 1),
  conflictShare: m(0, 0, 0),
  relativeDelta: m(0.1, 0.1, 0.1),
  routing: {
    reasoning: { tokens: 5, routed: m(6, 1, 3), meanProbability: m(0.5, 0.2, 0.3) },
    agent: { tokens: 2, routed: m(0, 3, 1), meanProbability: m(0.1, 0.6, 0.3) },
    format: null,
  },
};

describe('expert heatmap data', () => {
  it('turns routing counts into each set\'s share of its routing slots', () => {
    expect(Array.from(routedShare(METRICS, 'reasoning')?.values ?? [])).toEqual([0.6, 0.1, 0.3].map(Math.fround));
    expect(Array.from(routedShare(METRICS, 'agent')?.values ?? [])).toEqual([0, 0.75, 0.25]);
    expect(routedShare(METRICS, 'format')).toBeNull();
  });

  it('D_R − D_A is positive where an expert carries reasoning, negative where it carries tool use', () => {
    const values = Array.from(expertMatrix(METRICS, 'reasoningVsAgent')?.values ?? []);
    expect(values[0]).toBeCloseTo(0.6, 6);
    expect(values[1]).toBeCloseTo(-0.65, 6);
    expect(values[2]).toBeCloseTo(0.05, 6);
  });

  it('passes the engine\'s matrices through and names the rows by expert', () => {
    expect(expertMatrix(METRICS, 'probabilityAgent')).toBe(METRICS.routing.agent?.meanProbability);
    const data = expertHeatmapData(METRICS, 'gate');
    expect(data?.groups).toEqual(['0', '1', '2']);
    expect(data?.scale).toEqual({ kind: 'sequential', min: 0.5, max: 2 });
    expect(expertHeatmapData(METRICS, 'sumAgent')?.scale).toEqual({ kind: 'diverging', min: -1, max: 1 });
    expect(expertHeatmapData(METRICS, 'shareFormat')).toBeNull();
  });

  it('offers every expert as a block once', () => {
    expect(withExpertBlocks(['attention', 'expert.1'], 3)).toEqual(['attention', 'expert.1', 'expert.0', 'expert.2']);
  });

  it('reads one expert\'s S from its block name', () => {
    expect(expertOfBlock('expert.12')).toBe(12);
    expect(expertOfBlock('expert')).toBeNull();
    expect(expertOfBlock('expert_gate')).toBeNull();
    expect(expertGate(METRICS, { layer: 0, group: 'expert.2' })).toBe(2);
    expect(expertGate(METRICS, { layer: 0, group: 'expert.3' })).toBeNaN();
    expect(expertGate(null, { layer: 0, group: 'expert.0' })).toBeNaN();
  });
});
