// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticPair } from '../../engine-link/synthetic/synthetic-pair.ts';
import { CompatibilityReport } from './CompatibilityReport.tsx';

afterEach(cleanup);

describe('<CompatibilityReport>', () => {
  it('names the lm_head rows an edit keeps at θ_I and the think rows, as id ranges', () => {
    const summary = syntheticPair('/m/i', '/m/t', { layers: 2, experts: 0 });
    render(<CompatibilityReport summary={summary} />);
    expect(screen.getByTestId('protected-rows-report').textContent).toBe(
      "lm_head rows kept at θ_I (Instruct's added tokens but the think pair): 151643–151666 · think rows 151667–151668",
    );
  });

  it('says none when the tokenizer adds no tokens', () => {
    const summary = syntheticPair('/m/i', '/m/t', { layers: 2, experts: 0 });
    render(<CompatibilityReport summary={{ ...summary, report: { ...summary.report, tokens: { think: [], special: [] } } }} />);
    expect(screen.getByTestId('protected-rows-report').textContent).toBe("lm_head rows kept at θ_I (Instruct's added tokens but the think pair): none · think rows none");
  });
});
