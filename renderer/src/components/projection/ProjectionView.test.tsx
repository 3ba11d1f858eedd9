// @vitest-environment happy-dom
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { maskWeight, type GateMetrics, type Preview } from '../../protocol.ts';
import { ready } from '../../store/slice.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { ProjectionView } from './ProjectionView.tsx';
import { directionsAboveTau, spectrumRows } from './spectrum-data.ts';

afterEach(cleanup);

const tau = 0.03;
const k = 4.6 / tau;
const sigmaRatio = new Float32Array([1, 0.2, 0.06, 0.03, 0.01, 0]);

describe('spectrum rows', () => {
  it('puts the mask weight at each σ/σ₁: ≈0.01 at 0, 0.5 at τ, ≈0.99 at 2τ', () => {
    const rows = spectrumRows(sigmaRatio, tau, k);
    expect(rows.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows[5]?.weight).toBeCloseTo(0.00995, 4);
    expect(rows[3]?.weight).toBeCloseTo(0.5, 5);
    expect(rows[2]?.weight).toBeCloseTo(0.99, 2);
    expect(rows[5]?.ratio).toBeGreaterThan(0); // log axis: no zeros
  });

  it('counts directions at or above τ', () => {
    expect(directionsAboveTau(sigmaRatio, tau)).toBe(3); // 0.03 in float32 is just below τ
    expect(directionsAboveTau(sigmaRatio, 0.005)).toBe(5);
  });
});

describe('<ProjectionView>', () => {
  it('asks for a selection first', () => {
    renderWithStore(<ProjectionView />);
    expect(screen.getByText(/Select a block in the heatmap/)).toBeTruthy();
  });

  it('shows directions removed (Σw at the current τ, k) and the retained fraction', () => {
    const { store } = renderWithStore(<ProjectionView />);
    act(() => {
      store.getState().select({ layer: 2, group: 'attention' });
      store.getState().setSpectrum(ready({ layer: 2, key: 'attn_input', sigmaRatio, retainedFraction: 0.81 }));
    });
    const expected = Array.from(sigmaRatio).reduce((a, r) => a + maskWeight(r, tau, k), 0);
    const stats = screen.getByTestId('projection-stats').textContent ?? '';
    expect(stats).toContain(`${Number(expected.toPrecision(3))}directions removed`);
    // Kept follows the mask: rank − Σw, not the projector's fixed rank.
    expect(stats).toContain(`${Number((sigmaRatio.length - expected).toPrecision(3))}directions kept (of 6)`);
    // The heatmap's formula: a norm ratio, √(‖Π(U)‖²/‖U‖²).
    expect(stats).toContain('0.9retained ‖Π(U)‖/‖U‖, q/k/v');
    act(() => store.getState().updateSettings({ stages: { threshold: true, gate: true, gsp: false } }));
    expect(screen.getByTestId('projection-stats').textContent).toContain('0directions removed');
    expect(screen.getByTestId('projection-stats').textContent).toContain('6directions kept (of 6)');
  });

  it('shows the selected block’s heatmap Retained cell beside its projector’s share, named as the whole block', () => {
    const m = (values: number[]) => ({ rows: 2, cols: 2, values: new Float32Array(values) });
    const metrics: GateMetrics = { layers: 2, groups: ['attention', 'ffn'], gate: m([1, 1, 1, 1]), sumReasoning: m([1, 1, 1, 1]), sumAgent: m([1, 1, 1, 1]), conflictShare: m([0, 0, 0, 0]), relativeDelta: m([0, 0, 0, 0]) };
    const none = new Float32Array(0);
    const preview: Preview = {
      deltaLossReasoning: -0.1,
      deltaLossAgent: 0.001,
      firstOrder: { reasoning: -0.1, agent: 0.001 },
      breakdown: [],
      curve: { alphas: none, deltaLossReasoning: none, deltaLossAgent: none, firstOrderReasoning: none, firstOrderAgent: none },
      curvature: { state: 'absent', staleReasons: [] },
      range: null,
      effectiveScale: m([0.25, 0.25, 0.25, 0.25]),
      retainedNorm: m([0.61, 0.55, 0.72, 0.587]),
    };
    const { store } = renderWithStore(<ProjectionView />);
    act(() => {
      store.getState().setGateMetrics(ready(metrics));
      store.getState().setPreview(ready(preview));
      store.getState().select({ layer: 1, group: 'ffn' });
      store.getState().setSpectrum(ready({ layer: 1, key: 'ffn_input', sigmaRatio, retainedFraction: 0.04 }));
    });
    expect(screen.getByTestId('projection-stats').textContent).toContain('0.2retained ‖Π(U)‖/‖U‖, gate/up');
    expect(screen.getByTestId('block-retained').textContent).toBe('0.587retained, whole ffn block (heatmap cell)');
    // A block the heatmap has no column for (the other granularity's): no cell to show.
    act(() => store.getState().select({ layer: 1, group: 'ffn.down_proj' }));
    expect(screen.queryByTestId('block-retained')).toBeNull();
  });

  it('says when the engine has no spectra yet', () => {
    const { store } = renderWithStore(<ProjectionView />);
    act(() => {
      store.getState().select({ layer: 0, group: 'ffn' });
      store.getState().setSpectrum({ status: 'error', result: null, error: { code: 'not-implemented', message: 'GSP spectra: not built yet' } });
    });
    expect(screen.getByRole('status').textContent).toContain('not available in this engine yet');
  });
});
