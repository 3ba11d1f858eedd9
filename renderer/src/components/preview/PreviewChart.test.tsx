// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS, type Preview } from '../../protocol.ts';
import { ready } from '../../store/slice.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { curveAt, curveRows, niceRange, sameCurve } from './preview-data.ts';
import { PreviewPanel } from './PreviewPanel.tsx';

afterEach(cleanup);

const alphas = Float32Array.from({ length: 11 }, (_, i) => i / 10);
/** ΔL linear in α, as the first-order preview is. */
function preview(slopeR: number, slopeA: number, alpha: number): Preview {
  const empty = { rows: 0, cols: 0, values: new Float32Array(0) };
  return {
    deltaLossReasoning: slopeR * alpha,
    deltaLossAgent: slopeA * alpha,
    firstOrder: { reasoning: slopeR * alpha, agent: slopeA * alpha },
    breakdown: [],
    curve: {
      alphas,
      deltaLossReasoning: alphas.map((a) => slopeR * a),
      deltaLossAgent: alphas.map((a) => slopeA * a),
      firstOrderReasoning: alphas.map((a) => slopeR * a),
      firstOrderAgent: alphas.map((a) => slopeA * a),
    },
    curvature: { state: 'absent', staleReasons: [] },
    range: null,
    effectiveScale: empty,
    retainedNorm: empty,
  };
}

describe('preview curve helpers', () => {
  it('reads ΔL off the curve at any α inside it (exact for a linear curve), null outside', () => {
    const rows = curveRows(preview(-2, 0.5, 0.5));
    expect(curveAt(rows, 0.37)?.reasoning).toBeCloseTo(-0.74, 6);
    expect(curveAt(rows, 0.37)?.agent).toBeCloseTo(0.185, 6);
    expect(curveAt(rows, 0)?.reasoning).toBeCloseTo(0, 9);
    expect(curveAt(rows, 1)?.reasoning).toBeCloseTo(-2, 6);
    expect(curveAt(rows, 1.2)).toBeNull();
    expect(curveAt([], 0.5)).toBeNull();
  });

  it('tells an unchanged curve from a changed one', () => {
    const a = curveRows(preview(-2, 0.5, 0.5));
    expect(sameCurve(a, curveRows(preview(-2, 0.5, 0.7)))).toBe(true);
    expect(sameCurve(a, curveRows(preview(-2.1, 0.5, 0.5)))).toBe(false);
    expect(sameCurve(a, a.slice(1))).toBe(false);
  });

  it('rounds an axis range out to a 1-2-5 step', () => {
    expect(niceRange([0, -2.3, 0.4])).toEqual([-3, 1, 1]);
    expect(niceRange([0, -2.1, 0.3])).toEqual([-2.5, 0.5, 0.5]);
    expect(niceRange([0, 0.0123])).toEqual([0, 0.015, 0.005]);
    expect(niceRange([3, 3])).toEqual([2.6, 3.4, 0.2]);
    expect(niceRange([NaN])).toEqual([-1, 1, 0.5]);
  });
});

describe('<PreviewPanel> chart', () => {
  const marker = () => screen.getByTestId('alpha-marker');
  const dots = () => Array.from(marker().querySelectorAll('circle'), (c) => Number(c.getAttribute('cy')));
  const curvePaths = () => Array.from(screen.getByTestId('preview-chart').querySelectorAll('.preview-curve path'));

  it('moves the α marker along the curve the moment α moves, without redrawing the curve', () => {
    const { store } = renderWithStore(<PreviewPanel />);
    act(() => {
      store.getState().updateSettings({ alpha: 0.5 });
      store.getState().setPreview(ready(preview(-2, 0.5, 0.5)));
    });
    expect(marker().getAttribute('data-alpha')).toBe('0.5');
    const [pathR] = curvePaths();
    const drawn = pathR?.getAttribute('d');
    expect(drawn).toMatch(/^M/);
    const before = dots();

    // α alone: the engine has not answered yet, the marker is already there.
    act(() => store.getState().updateSettings({ alpha: 0.8 }));
    expect(marker().getAttribute('data-alpha')).toBe('0.8');
    const after = dots();
    // ΔL_R = −2α falls (y grows downwards), ΔL_A = 0.5α rises.
    expect(after[0]).toBeGreaterThan(before[0] ?? Infinity);
    expect(after[1]).toBeLessThan(before[1] ?? -Infinity);

    // The engine's answer for the new α has the same curve: the paths stay as they were.
    act(() => store.getState().setPreview(ready(preview(-2, 0.5, 0.8))));
    expect(curvePaths()[0]).toBe(pathR);
    expect(curvePaths()[0]?.getAttribute('d')).toBe(drawn);
    expect(dots()).toEqual(after);
    expect(screen.getByTestId('preview-reasoning').textContent).toContain('-1.6');

    // A different curve (another τ, say) is redrawn (one its axis does not merely rescale to the same shape).
    act(() => store.getState().setPreview(ready(preview(-2.3, 0.5, 0.8))));
    expect(curvePaths()[0]?.getAttribute('d')).not.toBe(drawn);
  });

  it('draws ΔL_A on its own axis: a curve 10⁴× smaller than ΔL_R still spans the plot', () => {
    const { store } = renderWithStore(<PreviewPanel />);
    act(() => store.getState().setPreview(ready(preview(-2, 2e-4, 0.5))));
    const heightOf = (path: Element | undefined) => {
      const ys = Array.from((path?.getAttribute('d') ?? '').matchAll(/[ML][\d.-]+,([\d.-]+)/g), (m) => Number(m[1]));
      return Math.max(...ys) - Math.min(...ys);
    };
    const [pathR, pathA] = curvePaths();
    // Both rise or fall over most of the plot's height (230 px less margins), not a flat line.
    expect(heightOf(pathR)).toBeGreaterThan(100);
    expect(heightOf(pathA)).toBeGreaterThan(100);
    const chart = screen.getByTestId('preview-chart');
    expect(chart.textContent).toContain('ΔL_R');
    expect(chart.textContent).toContain('ΔL_A');
    // The right axis' ticks are ΔL_A's scale (0.0002 at α = 1), not ΔL_R's.
    const [left, right] = Array.from(chart.querySelectorAll('.recharts-yAxis-tick-labels'), (axis) => axis.textContent);
    expect(left).toContain('-2');
    expect(right).toMatch(/2\.0e-4/);
    expect(right).not.toContain('-2');
  });

  it('hides the marker while α is past the curve', () => {
    const { store } = renderWithStore(<PreviewPanel />);
    act(() => {
      store.getState().setPreview(ready(preview(-2, 0.5, 0.5)));
      store.getState().updateSettings({ alpha: 1.4 });
    });
    expect(screen.queryByTestId('alpha-marker')).toBeNull();
  });

  it('reads out a measured point near the hovered α with the settings it was measured at', () => {
    const { store } = renderWithStore(<PreviewPanel />);
    act(() => {
      store.getState().setPreview(ready(preview(-2, 0.5, 0.5)));
      store.getState().addMeasured({
        method: { method: 'crane', settings: { ...DEFAULT_CRANE_SETTINGS, alpha: 0.4, tau: 0.05 } },
        measuredOn: { source: 'calibration' },
        edited: { reasoning: 0.7, agent: 0.41 },
        base: { reasoning: 1.5, agent: 0.4 },
        tokens: { reasoning: 10, agent: 5 },
        seconds: 3,
      });
    });
    const hoverArea = screen.getByTestId('preview-chart').querySelector('rect[fill="transparent"]');
    if (hoverArea === null) throw new Error('no hover area');
    const at = (alpha: number) => {
      // The plot's x axis spans α 0…1 over the area's width; the SVG sits at the page's origin here.
      const [x, width] = [Number(hoverArea.getAttribute('x')), Number(hoverArea.getAttribute('width'))];
      fireEvent.mouseMove(hoverArea, { clientX: x + alpha * width });
    };
    act(() => at(0.41));
    const lines = screen.getAllByTestId('preview-hover-measured');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.textContent).toContain('α 0.4');
    expect(lines[0]?.textContent).toContain('ΔL_R -0.8');
    expect(screen.getByTestId('preview-hover-text').textContent).toContain('α 0.4 · q 0.5 · τ 0.05');
    // Away from it: the predicted values alone.
    act(() => at(0.8));
    expect(screen.getByTestId('preview-hover-text').textContent).toContain('ΔL_R predicted');
    expect(screen.queryAllByTestId('preview-hover-measured')).toHaveLength(0);
  });
});
