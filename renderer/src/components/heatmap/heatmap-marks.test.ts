import { describe, expect, it } from 'vitest';
import { describeMark, overrideMarks } from './heatmap-marks.ts';

describe('heatmap override marks', () => {
  it('places overrides on their cells and skips blocks the grid has no column for', () => {
    const marks = overrideMarks(
      [
        { block: { layer: 2, group: 'ffn' }, gate: 0.5, locked: false },
        { block: { layer: 0, group: 'attention' }, gate: null, locked: true },
        { block: { layer: 1, group: 'ffn.up' }, gate: 0.1, locked: false },
        { block: { layer: 9, group: 'ffn' }, gate: 0.1, locked: false },
      ],
      ['attention', 'ffn'],
      4,
    );
    expect(marks).toEqual([
      { cell: { layer: 2, groupIndex: 1 }, locked: false, gate: 0.5 },
      { cell: { layer: 0, groupIndex: 0 }, locked: true, gate: null },
    ]);
  });

  it('says what an override does in the tooltip', () => {
    expect(describeMark({ cell: { layer: 0, groupIndex: 0 }, locked: true, gate: 0.3 }, String)).toBe('locked: keeps θ_I (S = 0)');
    expect(describeMark({ cell: { layer: 0, groupIndex: 0 }, locked: false, gate: 0.3 }, String)).toBe('gate overridden: S = 0.3');
    expect(describeMark(undefined, String)).toBeNull();
  });
});
