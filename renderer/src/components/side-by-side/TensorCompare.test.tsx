// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TensorView } from '../../protocol.ts';
import { stepPath } from './HistogramOverlay.tsx';
import { TensorCompare } from './TensorCompare.tsx';

afterEach(cleanup);

const histogram = (counts: number[]) => ({ edges: Float32Array.from({ length: counts.length + 1 }, (_, i) => i - 2), counts: Float32Array.from(counts) });
/** A 1024 × 3072 projection's 64 × 64 maps: |Δ| grows along the columns, GSP halves it. */
function tensor(): TensorView {
  const before = Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 64) / 64);
  return {
    name: 'model.layers.0.mlp.up_proj.weight',
    shape: [1024, 3072],
    norms: { instruct: 10, thinking: 11, edited: 10.5, delta: 2 },
    values: { instruct: histogram([1, 5, 9, 2]), thinking: histogram([2, 6, 7, 3]), edited: histogram([1, 6, 8, 2]) },
    delta: histogram([3, 9, 9, 3]),
    keptFraction: 0.5,
    deltaMap: { before: { rows: 64, cols: 64, values: before }, after: { rows: 64, cols: 64, values: before.map((v) => v / 2) } },
  };
}

describe('<TensorCompare>', () => {
  it('CRANE: |Δ| before and after its projection on one scale with a legend, in the tensor’s aspect', () => {
    render(<TensorCompare tensor={tensor()} method="crane" />);
    const maps = screen.getAllByRole('img', { name: /^\|Δ\|/ });
    expect(maps.map((m) => m.getAttribute('aria-label'))).toEqual(['|Δ| before GSP projection', '|Δ| after GSP projection (the edit)']);
    // 1024 × 3072: three times as wide as tall, not the 64 × 64 map's square.
    expect(maps[0]?.style.width).toBe('150px');
    expect(maps[0]?.style.height).toBe('50px');
    expect(screen.getByLabelText(/^\|Δ\| \(mean per cell\) colour scale from 0 to 0\.984/)).toBeTruthy();
  });

  it('a baseline has no projection: one map, named as its update', () => {
    render(<TensorCompare tensor={tensor()} method="ties" />);
    const maps = screen.getAllByRole('img', { name: /^\|Δ\|/ });
    expect(maps.map((m) => m.getAttribute('aria-label'))).toEqual(['|Δ| TIES update (no projection)']);
    expect(screen.getByTestId('tensor-compare').textContent).not.toContain('GSP');
  });

  it('reads out the hovered cell: the tensor rows and columns it averages and its |Δ|', () => {
    render(<TensorCompare tensor={tensor()} method="crane" />);
    const [before] = screen.getAllByRole('img', { name: /^\|Δ\|/ });
    if (before === undefined) throw new Error('no map');
    const [readout] = screen.getAllByTestId('matrix-readout');
    expect(readout?.textContent).toBe('1024 × 3072 · hover for values');
    // happy-dom: the canvas' box is at 0,0, so clientX/Y are offsets in its 150 × 50 box.
    fireEvent.mouseMove(before, { clientX: 149, clientY: 0 });
    expect(readout?.textContent).toBe('rows 0–15 · cols 3024–3071: |Δ| 0.984 (mean)');
    fireEvent.mouseLeave(before);
    expect(readout?.textContent).toBe('1024 × 3072 · hover for values');
  });

  it('overlays the three value histograms on one axis', () => {
    render(<TensorCompare tensor={tensor()} method="crane" />);
    const [values] = screen.getAllByTestId('histogram-overlay');
    expect(Array.from(values?.querySelectorAll('path') ?? [], (p) => p.getAttribute('data-series'))).toEqual(['Instruct', 'Thinking', 'Edited']);
    expect(values?.textContent).toContain('▬ Thinking');
  });

  it('draws a histogram as a step outline, the tallest bar reaching the top', () => {
    expect(stepPath([0, 9], 9, 20, 10)).toBe('M0,10L0.00,10.00L10.00,10.00L10.00,2.00L20.00,2.00L20,10');
    expect(stepPath([], 1, 20, 10)).toBe('');
  });
});
