import { describe, expect, it } from 'vitest';
import type { GateMetrics } from '../../protocol.ts';
import type { PassMetrics } from '../../store/passes-slice.ts';
import { passMatrix, passViews } from './pass-data.ts';

const matrix = (rows: number, cols: number) => ({ rows, cols, values: new Float32Array(rows * cols).fill(9) });
const GATES: GateMetrics = { layers: 2, groups: ['attention', 'ffn'], gate: matrix(2, 2), sumReasoning: matrix(2, 2), sumAgent: matrix(2, 2), conflictShare: matrix(2, 2), relativeDelta: matrix(2, 2) };

const block = (pass: number, layer: number, group: string, block: string | null, sumReasoning: number, conflictShare = 0.1) => ({
  pass, layer, group, block, count: 4, sumReasoning, sumAgent: -sumReasoning, positive: 0, conflictShare, column: block ?? group,
});

// layer 0 attention: passes pull opposite ways (+3, −1); ffn agree (+2, +5); layer 1 attention agrees (−1, −2); fine blocks too
const PASSES: PassMetrics = {
  passes: 2,
  layers: 2,
  blocks: [
    block(0, 0, 'attention', null, 3, 0.2), block(1, 0, 'attention', null, -1, 0.7),
    block(0, 0, 'ffn', null, 2), block(1, 0, 'ffn', null, 5),
    block(0, 1, 'attention', null, -1), block(1, 1, 'attention', null, -2),
    block(0, 0, 'attention', 'q', 100), block(1, 0, 'attention', 'q', -100),
  ],
  spectra: [],
};

describe('pass views of the gate heatmap', () => {
  it('offers combined, each pass and disagreement for Σs, no disagreement for conflict, nothing for S', () => {
    expect(passViews(PASSES, 'sumReasoning').map((v) => v.label)).toEqual(['Combined', 'Pass 1', 'Pass 2', 'Disagreement']);
    expect(passViews(PASSES, 'conflictShare').map((v) => v.value)).toEqual(['combined', 'pass0', 'pass1']);
    expect(passViews(PASSES, 'gate')).toEqual([]);
  });

  it('lays one pass out on the gate grid, NaN where the pass has no block', () => {
    expect([...passMatrix(GATES, PASSES, 'pass1', 'sumReasoning')?.values ?? []]).toEqual([-1, 5, -2, NaN]);
    expect([...passMatrix(GATES, PASSES, 'pass0', 'sumAgent')?.values ?? []]).toEqual([-3, -2, 1, NaN]);
    expect([...passMatrix(GATES, PASSES, 'pass1', 'conflictShare')?.values ?? []].map((v) => Math.round(v * 10) / 10)).toEqual([0.7, 0.1, 0.1, NaN]);
  });

  it('marks the blocks whose passes pull opposite ways with the smaller side, 0 where they agree', () => {
    expect([...passMatrix(GATES, PASSES, 'disagreement', 'sumReasoning')?.values ?? []]).toEqual([1, 0, 0, NaN]);
  });

  it('shows the combined metric for the combined view and for views a metric has not', () => {
    expect(passMatrix(GATES, PASSES, 'combined', 'sumReasoning')).toBeNull();
    expect(passMatrix(GATES, PASSES, 'pass0', 'gate')).toBeNull();
    expect(passMatrix(GATES, PASSES, 'disagreement', 'conflictShare')).toBeNull();
  });

  it('takes the fine blocks when the heatmap shows projections', () => {
    const fine = { ...GATES, groups: ['q'], gate: matrix(2, 1), sumReasoning: matrix(2, 1), sumAgent: matrix(2, 1), conflictShare: matrix(2, 1), relativeDelta: matrix(2, 1) };
    expect([...passMatrix(fine, PASSES, 'disagreement', 'sumReasoning')?.values ?? []]).toEqual([100, NaN]);
  });
});
