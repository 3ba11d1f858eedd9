// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { spectrumRows } from './spectrum-data.ts';
import { directionAt, SpectrumChart } from './SpectrumChart.tsx';

afterEach(cleanup);

const sigmaRatio = Float32Array.from({ length: 40 }, (_, i) => 10 ** (-i / 8));
const chart = (tau: number) => <SpectrumChart rows={spectrumRows(sigmaRatio, tau, 4.6 / tau)} tau={tau} width={440} height={230} />;
const sigmaPath = () => screen.getByTestId('spectrum-chart').querySelector('.recharts-line path.recharts-line-curve');

describe('<SpectrumChart>', () => {
  it('draws σ, the mask curve and the τ line, with both series in the legend', () => {
    render(chart(0.03));
    expect(sigmaPath()?.getAttribute('d')).toMatch(/^M/);
    expect(screen.getByTestId('mask-curve').querySelector('path')?.getAttribute('d')).toMatch(/^M/);
    expect(screen.getByTestId('tau-line').textContent).toBe('τ = 0.03');
    const legend = screen.getByTestId('spectrum-chart').querySelector('.recharts-legend-wrapper')?.textContent ?? '';
    expect(legend).toContain('σᵢ/σ₁');
    expect(legend).toContain('mask w(σᵢ): 1 = removed, 0 = kept');
    expect(legend).toContain('τ: w = 0.5');
  });

  it('labels its axes: direction i, σᵢ/σ₁ on the left, the mask on the right', () => {
    render(chart(0.03));
    const labels = Array.from(screen.getByTestId('spectrum-chart').querySelectorAll('.recharts-label'), (l) => l.textContent);
    expect(labels).toEqual(expect.arrayContaining(['direction i (by σ, log scale)', 'σᵢ/σ₁ (log)', 'mask w']));
  });

  it('reads out the direction under the pointer: σᵢ/σ₁ and w there, in words', () => {
    render(chart(0.03));
    expect(screen.queryByTestId('spectrum-hover')).toBeNull();
    const overlay = screen.getByTestId('spectrum-chart').querySelector('rect[fill="transparent"]');
    if (overlay === null) throw new Error('no hover overlay');
    // happy-dom lays nothing out (the svg's box is at 0,0): clientX is the plot's own x. The
    // overlay's left edge is direction 1, where σ₁/σ₁ = 1 and the mask removes it.
    fireEvent.mouseMove(overlay, { clientX: Number(overlay.getAttribute('x')) + 1 });
    expect(screen.getByTestId('spectrum-hover').textContent).toBe('direction 1σᵢ/σ₁ = 1w = 1 (removed)');
    // The right edge is the last direction, far below τ: kept.
    fireEvent.mouseMove(overlay, { clientX: Number(overlay.getAttribute('x')) + Number(overlay.getAttribute('width')) - 1 });
    expect(screen.getByTestId('spectrum-hover').textContent).toMatch(/^direction 40σᵢ\/σ₁ = 1\.\d+e-5w = 0\.0\d+ \(kept\)$/);
    fireEvent.mouseLeave(overlay);
    expect(screen.queryByTestId('spectrum-hover')).toBeNull();
  });

  it('rounds the pointer to the nearest direction inside the spectrum', () => {
    expect(directionAt(2.4, 40)).toBe(2);
    expect(directionAt(0.2, 40)).toBe(1);
    expect(directionAt(57, 40)).toBe(40);
    expect(directionAt(Number.NaN, 40)).toBeNull();
    expect(directionAt(3, 0)).toBeNull();
  });

  it('a τ move redraws the mask and the τ line and leaves the σ series as it was', () => {
    const { rerender } = render(chart(0.03));
    const sigma = sigmaPath();
    const sigmaD = sigma?.getAttribute('d');
    const maskD = screen.getByTestId('mask-curve').querySelector('path')?.getAttribute('d');
    const tauY = screen.getByTestId('tau-line').querySelector('line')?.getAttribute('y1');
    rerender(chart(0.1));
    expect(sigmaPath()).toBe(sigma);
    expect(sigmaPath()?.getAttribute('d')).toBe(sigmaD);
    expect(screen.getByTestId('mask-curve').querySelector('path')?.getAttribute('d')).not.toBe(maskD);
    expect(Number(screen.getByTestId('tau-line').querySelector('line')?.getAttribute('y1'))).toBeLessThan(Number(tauY));
  });
});
