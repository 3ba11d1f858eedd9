// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { PassMetrics } from '../../store/passes-slice.ts';
import { passSpectrumSeries } from './pass-spectra.ts';
import { spectrumRows } from './spectrum-data.ts';
import { SpectrumChart } from './SpectrumChart.tsx';

afterEach(cleanup);

const METRICS: PassMetrics = {
  passes: 2,
  layers: 2,
  blocks: [],
  spectra: [
    { layer: 1, key: 'ffn_input', pass: null, sigma: [8, 4] },
    { layer: 1, key: 'ffn_input', pass: 0, sigma: [4, 1, 0] },
    { layer: 1, key: 'ffn_input', pass: 1, sigma: [10, 5] },
    { layer: 1, key: 'attn_input', pass: 0, sigma: [3] },
    { layer: 0, key: 'ffn_input', pass: 0, sigma: [] },
  ],
};

describe('passSpectrumSeries', () => {
  it('gives each pass of the layer and key its σᵢ/σ₁ (its own σ₁), zero floored for the log axis', () => {
    expect(passSpectrumSeries(METRICS, 1, 'ffn_input')).toEqual([
      { pass: 0, rows: [{ index: 1, ratio: 1 }, { index: 2, ratio: 0.25 }, { index: 3, ratio: 1e-6 }] },
      { pass: 1, rows: [{ index: 1, ratio: 1 }, { index: 2, ratio: 0.5 }] },
    ]);
  });

  it('has nothing for a model without a loop or a pass without directions', () => {
    expect(passSpectrumSeries(null, 1, 'ffn_input')).toEqual([]);
    expect(passSpectrumSeries(METRICS, 0, 'ffn_input')).toEqual([]);
  });
});

describe('<SpectrumChart> with passes', () => {
  it('lays each pass\'s spectrum over the pooled one, dashed and named in the legend', () => {
    const rows = spectrumRows(Float32Array.of(1, 0.5, 0.1), 0.03, 150);
    render(<SpectrumChart rows={rows} tau={0.03} width={440} height={230} passes={passSpectrumSeries(METRICS, 1, 'ffn_input')} />);
    const root = screen.getByTestId('spectrum-chart');
    const dashes = Array.from(root.querySelectorAll('.recharts-line path.recharts-line-curve'), (p) => p.getAttribute('stroke-dasharray'));
    expect(dashes.filter((d) => d !== null)).toEqual(['6 3', '2 2']);
    const legend = root.querySelector('.recharts-legend-wrapper')?.textContent ?? '';
    expect(legend).toContain('pass 1 alone');
    expect(legend).toContain('pass 2 alone');
  });
});
