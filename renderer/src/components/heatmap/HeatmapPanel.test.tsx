// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { cellRect } from '../../lib/heatmap-geometry.ts';
import { analyzedEngine, renderWithStore } from '../../testing/render-with-store.tsx';
import { heatmapLayout } from './HeatmapCanvas.tsx';
import { HeatmapPanel } from './HeatmapPanel.tsx';

afterEach(cleanup);

async function panel(experts: number) {
  const view = renderWithStore(<HeatmapPanel />, await analyzedEngine(4, experts));
  await act(() => view.actions.loadGateMetrics());
  await act(() => view.actions.loadExpertMetrics());
  return view;
}

describe('<HeatmapPanel> experts view', () => {
  it('offers layer × expert only for a model with routed experts', async () => {
    await panel(0);
    expect(screen.queryByRole('radiogroup', { name: 'Heatmap rows' })).toBeNull();
    expect(screen.getByTestId('gate-heatmap')).toBeTruthy();
  });

  it('draws layers × experts, says what a cell holds and selects the expert\'s block', async () => {
    const { store } = await panel(8);
    fireEvent.click(screen.getByRole('radio', { name: 'Layer × expert' }));
    const canvas = screen.getByTestId('expert-heatmap');
    expect(canvas.getAttribute('aria-label')).toBe('D_R − D_A routing heatmap: 4 layers × 8 experts. Arrow keys move, Enter selects.');
    expect(screen.getByTestId('expert-summary').textContent).toContain('top-8 routing; tokens counted: D_R 4096, D_A 2048, D_F 512');
    const r = cellRect(heatmapLayout(720, 4, 8), { layer: 1, groupIndex: 2 });
    const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
    fireEvent.mouseMove(canvas, at);
    const tooltip = screen.getByTestId('expert-tooltip');
    expect(tooltip.textContent).toContain('layer 1 · expert 2');
    expect(tooltip.textContent).toMatch(/D_R routed · p̄\d+ of 4096/);
    fireEvent.click(canvas, at);
    expect(store.getState().selection.block).toEqual({ layer: 1, group: 'expert.2' });
    fireEvent.change(screen.getByRole('combobox', { name: 'Expert metric' }), { target: { value: 'probabilityAgent' } });
    expect(canvas.getAttribute('aria-label')).toContain('p̄ D_A heatmap');
  });

  it('opens the selected expert side by side under two methods', async () => {
    const { store } = await panel(8);
    fireEvent.click(screen.getByRole('radio', { name: 'Layer × expert' }));
    act(() => store.getState().select({ layer: 3, group: 'expert.5' }));
    fireEvent.click(screen.getByRole('button', { name: 'Compare layer 3 · expert.5 side by side' }));
    const s = store.getState();
    expect(s.ui.view).toBe('side-by-side');
    expect(s.sideBySide.mode).toBe('methods');
    expect(s.sideBySide.panes.map((p) => p.block)).toEqual([{ layer: 3, group: 'expert.5' }, { layer: 3, group: 'expert.5' }]);
    expect(s.sideBySide.panes[0].method).toBe('crane');
  });
});
