// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ready } from '../../store/slice.ts';
import { analyzedEngine, renderWithStore } from '../../testing/render-with-store.tsx';
import { heatmapData } from './heatmap-data.ts';
import { HeatmapPanel } from './HeatmapPanel.tsx';

afterEach(cleanup);

async function panel() {
  const view = renderWithStore(<HeatmapPanel />, await analyzedEngine(2));
  await act(() => view.actions.loadGateMetrics());
  return view;
}

describe('<HeatmapPanel> pass switch', () => {
  it('is not offered for a model without a loop (the engine answers null)', async () => {
    const { store, actions } = await panel();
    await act(() => actions.loadPassMetrics());
    act(() => store.getState().setHeatmapMetric('sumReasoning'));
    expect(store.getState().passes.metrics).toMatchObject({ status: 'ready', result: null });
    expect(screen.queryByRole('radiogroup', { name: 'Loop pass' })).toBeNull();
  });

  it('switches a looped model\'s Σs between combined, one pass and disagreement, and back to combined for S', async () => {
    const { store } = await panel();
    const gates = store.getState().gates.metrics.result;
    if (gates === null) throw new Error('no gate metrics');
    const blocks = gates.groups.flatMap((column, c) => [0, 1].flatMap((layer) => [0, 1].map((pass) => ({
      pass, layer, group: column, block: null, count: 1, sumReasoning: (pass === 0 ? 1 : -2) * (c + 1), sumAgent: 0, positive: 0, conflictShare: 0, column,
    }))));
    act(() => store.getState().setPassMetrics(ready({ passes: 2, layers: 2, blocks, spectra: [] })));
    act(() => store.getState().setHeatmapMetric('sumReasoning'));
    const combined = [...heatmapData(store.getState(), 'sumReasoning')?.matrix.values ?? []];
    expect(combined).toEqual([...gates.sumReasoning.values]);
    fireEvent.click(screen.getByRole('radio', { name: 'Pass 2' }));
    expect([...heatmapData(store.getState(), 'sumReasoning')?.matrix.values ?? []]).toEqual([0, 1].flatMap(() => gates.groups.map((_, c) => -2 * (c + 1))));
    fireEvent.click(screen.getByRole('radio', { name: 'Disagreement' }));
    expect([...heatmapData(store.getState(), 'sumReasoning')?.matrix.values ?? []]).toEqual([0, 1].flatMap(() => gates.groups.map((_, c) => c + 1)));
    act(() => store.getState().setHeatmapMetric('gate'));
    expect(screen.queryByRole('radiogroup', { name: 'Loop pass' })).toBeNull();
    expect([...heatmapData(store.getState(), 'gate')?.matrix.values ?? []]).toEqual([...gates.gate.values]);
  });
});
