// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { spectrumRows } from './spectrum-data.ts';
import { SpectrumChart } from './SpectrumChart.tsx';

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
    expect(legend).toContain('mask w(σᵢ)');
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
