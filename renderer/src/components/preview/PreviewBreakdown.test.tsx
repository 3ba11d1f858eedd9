// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Preview } from '../../protocol.ts';
import { PreviewBreakdown } from './PreviewBreakdown.tsx';

afterEach(cleanup);

const empty = { rows: 0, cols: 0, values: new Float32Array(0) };
const none = new Float32Array(0);
const terms = (reasoning: number, agent: number) => ({ reasoning, agent });

function preview(curvature: Preview['curvature'], range: Preview['range'] = null): Preview {
  return {
    deltaLossReasoning: -0.9,
    deltaLossAgent: 6e-5,
    firstOrder: terms(-0.87, -1.1e-4),
    breakdown: [
      { group: 'attention', firstOrder: terms(-0.53, -1.1e-4), secondOrder: terms(-0.06, 1.2e-4) },
      { group: 'embed_think', firstOrder: terms(-0.34, 0), secondOrder: terms(0.03, 5e-5) },
    ],
    curve: { alphas: none, deltaLossReasoning: none, deltaLossAgent: none, firstOrderReasoning: none, firstOrderAgent: none },
    curvature,
    range,
    effectiveScale: empty,
    retainedNorm: empty,
  };
}

describe('PreviewBreakdown', () => {
  it('lists each tensor group with its first- and second-order terms and the totals', () => {
    render(<PreviewBreakdown preview={preview({ state: 'current', staleReasons: [] })} />);
    const rows = within(screen.getByTestId('preview-breakdown')).getAllByRole('row').map((r) => r.textContent);
    expect(rows).toEqual(['tensor groupΔL_R 1stΔL_R 2ndΔL_A 1stΔL_A 2nd', 'attention-0.53-0.06-1.10e-4+1.20e-4', 'embedding <think> rows-0.34+0.030+5.00e-5', 'total-0.9+6.00e-5']);
    expect(screen.queryByTestId('curvature-stale')).toBeNull();
  });

  it('names what makes the curvature stale, and drops its columns when there is none', () => {
    render(<PreviewBreakdown preview={preview({ state: 'stale', staleReasons: ['τ 0.05 (curvature at 0.03)'] })} />);
    expect(screen.getByTestId('curvature-stale').textContent).toMatch(/stale .*τ 0\.05 \(curvature at 0\.03\)/);
    cleanup();
    render(<PreviewBreakdown preview={preview({ state: 'absent', staleReasons: [] })} />);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['tensor group', 'ΔL_R 1st', 'ΔL_A 1st']);
    expect(screen.getByTestId('preview-breakdown').textContent).toMatch(/no curvature stage/);
  });

  it('shows the measured anchors with their settings and the trusted α', () => {
    const anchor = (alpha: number, agrees: boolean) => ({ alpha, measured: terms(-0.88, 2.6e-4), predicted: terms(-0.91, 6e-5), firstOrder: terms(-0.87, -1e-4), agrees });
    const range = { trustedUpTo: 0.25, tolerance: { relative: 0.1, absolute: 1e-5 }, split: 'train', anchors: [anchor(0.25, true), anchor(1, false)] };
    render(<PreviewBreakdown preview={preview({ state: 'current', staleReasons: [] }, range)} />);
    const note = screen.getByTestId('preview-range').textContent;
    expect(note).toMatch(/up to α 0\.25; shaded beyond/);
    expect(note).toMatch(/train split, default settings/);
    expect(note).toMatch(/α 0\.25: ΔL_R -0\.88 \(model -0\.91\).*✓ · α 1: .*✗/);
  });
});
