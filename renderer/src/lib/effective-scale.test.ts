import { describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS, type CraneSettings, type GateMetrics } from '../protocol.ts';
import { effectiveScale } from './effective-scale.ts';

/** 2 layers × 2 groups; only the gate matrix matters here. */
function metrics(gate: number[]): GateMetrics {
  const matrix = { rows: 2, cols: 2, values: Float32Array.from(gate) };
  return { layers: 2, groups: ['attention', 'ffn'], gate: matrix, sumReasoning: matrix, sumAgent: matrix, conflictShare: matrix, relativeDelta: matrix };
}

const settings = (patch: Partial<CraneSettings>): CraneSettings => ({ ...DEFAULT_CRANE_SETTINGS, alpha: 0.5, ...patch });

describe('α·S per heatmap cell', () => {
  const gate = metrics([0.25, 1, 2, 1]);

  it('is α times the gate with the gate on, α with it off', () => {
    expect(Array.from(effectiveScale(gate, settings({})).values)).toEqual([0.125, 0.5, 1, 0.5]);
    const off = settings({ stages: { threshold: true, gate: false, gsp: true } });
    expect(Array.from(effectiveScale(gate, off).values)).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('applies overrides by column name and layer: a hand-set S wins even with the gate off, a lock is 0, a null gate keeps S', () => {
    const overrides = [
      { block: { layer: 0, group: 'ffn' }, gate: 3, locked: false },
      { block: { layer: 1, group: 'attention' }, gate: 3, locked: true },
      { block: { layer: 1, group: 'ffn' }, gate: null, locked: false },
      { block: { layer: 5, group: 'ffn' }, gate: 3, locked: false },
      { block: { layer: 0, group: 'expert' }, gate: 3, locked: false },
    ];
    expect(Array.from(effectiveScale(gate, settings({ overrides })).values)).toEqual([0.125, 1.5, 0, 0.5]);
    const off = settings({ overrides, stages: { threshold: true, gate: false, gsp: true } });
    expect(Array.from(effectiveScale(gate, off).values)).toEqual([0.5, 1.5, 0, 0.5]);
  });
});
