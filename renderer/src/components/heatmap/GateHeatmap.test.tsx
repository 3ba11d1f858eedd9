// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { colorAt } from '../../lib/color-scale.ts';
import { cellRect } from '../../lib/heatmap-geometry.ts';
import type { GateMetrics } from '../../protocol.ts';
import { ready } from '../../store/slice.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { cellPixels, cellsHoldValues, valueTextColor } from './draw-heatmap.ts';
import { GateHeatmap } from './GateHeatmap.tsx';
import { heatmapLayout } from './HeatmapCanvas.tsx';
import { heatmapData, metricScale } from './heatmap-data.ts';

afterEach(cleanup);

const m = (values: number[]) => ({ rows: 2, cols: 3, values: new Float32Array(values) });
const METRICS: GateMetrics = {
  layers: 2,
  groups: ['attention', 'ffn', 'norm'],
  gate: m([0.5, 1, 2, 0, 1, 4]),
  sumReasoning: m([1, 2, 3, 4, 5, 6]),
  sumAgent: m([-1, -2, -3, 4, 5, 6]),
  conflictShare: m([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]),
  relativeDelta: m([0.01, 0.02, 0.03, 0.04, 0.05, 0.06]),
};

function setup() {
  const view = renderWithStore(<GateHeatmap />);
  act(() => view.store.getState().setGateMetrics(ready(METRICS)));
  const layout = heatmapLayout(720, 2, 3);
  const canvas = screen.getByTestId('gate-heatmap');
  const centre = (layer: number, groupIndex: number) => {
    const r = cellRect(layout, { layer, groupIndex });
    return { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
  };
  return { ...view, canvas, centre };
}

describe('gate heatmap data', () => {
  it('colours cells in (group row, layer column) pixel order', () => {
    const scale = { kind: 'sequential', min: 0, max: 4 } as const;
    const pixels = cellPixels(METRICS.gate, scale);
    // Pixel (x = layer 1, y = group 2) holds gate[1][2] = 4, the top of the scale.
    const p = (2 * 2 + 1) * 4;
    expect(Array.from(pixels.slice(p, p + 4))).toEqual([...colorAt(scale, 4), 255]);
    expect(Array.from(pixels.slice(0, 4))).toEqual([...colorAt(scale, 0.5), 255]);
  });

  it('derives α·S from the gate and settings, on a domain fixed by the gate', () => {
    const view = renderWithStore(<div />);
    const s = view.store.getState();
    s.setGateMetrics(ready(METRICS));
    s.updateSettings({ alpha: 0.5 });
    s.setOverride({ layer: 0, group: 'ffn' }, { locked: true });
    const data = heatmapData(view.store.getState(), 'effectiveScale');
    expect(Array.from(data?.matrix.values ?? [])).toEqual([0.25, 0, 1, 0, 0.5, 2]);
    expect(data && metricScale(view.store.getState(), 'effectiveScale', data.matrix)).toEqual({ kind: 'sequential', min: 0, max: 2 });
    expect(heatmapData(view.store.getState(), 'sumAgent')?.scale).toEqual({ kind: 'diverging', min: -6, max: 6 });
    expect(heatmapData(view.store.getState(), 'retainedNorm')).toBeNull();
  });
});

describe('<GateHeatmap>', () => {
  it('labels the canvas with its size and shows a legend', () => {
    const { canvas } = setup();
    expect(canvas.getAttribute('aria-label')).toContain('2 layers × 3 groups');
  });

  it('shows the hovered block’s values in a tooltip', () => {
    const { canvas, centre } = setup();
    fireEvent.mouseMove(canvas, centre(1, 2));
    const tooltip = screen.getByTestId('heatmap-tooltip');
    expect(tooltip.textContent).toContain('layer 1 · norm');
    expect(tooltip.querySelector('tr.strong')?.textContent).toBe('S_CTG4');
    fireEvent.mouseLeave(canvas);
    expect(screen.queryByTestId('heatmap-tooltip')).toBeNull();
  });

  it('selects the clicked block', () => {
    const { canvas, centre, store } = setup();
    fireEvent.click(canvas, centre(0, 1));
    expect(store.getState().selection.block).toEqual({ layer: 0, group: 'ffn' });
    expect(store.getState().selection.activationKey).toBe('ffn_input');
    fireEvent.click(canvas, centre(1, 0));
    expect(store.getState().selection).toEqual({ block: { layer: 1, group: 'attention' }, activationKey: 'attn_input' });
  });

  it('is keyboard operable: arrows move, Enter selects', () => {
    const { canvas, store } = setup();
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'ArrowDown' });
    fireEvent.keyDown(canvas, { key: 'Enter' });
    expect(store.getState().selection.block).toEqual({ layer: 1, group: 'ffn' });
  });

  it('edits a block\'s S in place: double-click, type, Enter; empty gives the computed S back; Escape changes nothing', () => {
    const { canvas, centre, store } = setup();
    fireEvent.doubleClick(canvas, centre(1, 0));
    const field = screen.getByRole('spinbutton', { name: 'Gate S of layer 1 · attention' });
    expect((field as HTMLInputElement).value).toBe('0');
    fireEvent.change(field, { target: { value: '2.5' } });
    fireEvent.keyDown(field, { key: 'Enter' });
    expect(store.getState().settings.current.overrides).toEqual([{ block: { layer: 1, group: 'attention' }, gate: 2.5, locked: false }]);
    fireEvent.doubleClick(canvas, centre(1, 0));
    const again = screen.getByRole('spinbutton', { name: 'Gate S of layer 1 · attention' });
    expect((again as HTMLInputElement).value).toBe('2.5');
    fireEvent.change(again, { target: { value: '9' } });
    fireEvent.keyDown(again, { key: 'Escape' });
    expect(screen.queryByRole('spinbutton')).toBeNull();
    expect(store.getState().settings.current.overrides[0]?.gate).toBe(2.5);
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'F2' });
    const cleared = screen.getByRole('spinbutton', { name: 'Gate S of layer 1 · attention' });
    fireEvent.change(cleared, { target: { value: '' } });
    fireEvent.keyDown(cleared, { key: 'Enter' });
    expect(store.getState().settings.current.overrides).toEqual([]);
  });

  it('offers values in cells only where the cells can hold them', () => {
    setup();
    expect(screen.getByRole('checkbox', { name: 'Values in cells' })).not.toHaveProperty('disabled', true);
    expect(cellsHoldValues(heatmapLayout(720, 2, 3))).toBe(true);
    expect(cellsHoldValues(heatmapLayout(720, 48, 3))).toBe(false);
    expect(cellsHoldValues(heatmapLayout(1440, 4, 128))).toBe(false);
    expect(valueTextColor([255, 255, 200])).toBe('#111111');
    expect(valueTextColor([20, 20, 80])).toBe('#ffffff');
  });
});
