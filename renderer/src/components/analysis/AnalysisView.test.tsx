// @vitest-environment happy-dom
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticPair } from '../../engine-link/synthetic/synthetic-pair.ts';
import { ready } from '../../store/slice.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { AnalysisView } from './AnalysisView.tsx';

afterEach(cleanup);

/** A project folder and a pair whose Instruct declares `architecture`. */
function renderWith(architecture: string) {
  const rendered = renderWithStore(<AnalysisView />);
  const pair = syntheticPair('/m/i', '/m/t', { layers: 4, experts: 8 });
  act(() => {
    rendered.store.getState().setProjectDir('/p');
    rendered.store.getState().setPairSummary(ready({ ...pair, instruct: { ...pair.instruct, architectures: [architecture] } }));
  });
}

describe('<AnalysisView>', () => {
  it('turns Analyze off on Qwen3-Next and says to open a reference run instead', () => {
    renderWith('Qwen3NextForCausalLM');
    expect((screen.getByRole('button', { name: 'Analyze' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('reference-only-note').textContent).toMatch(/^Qwen3-Next has no runtime in the studio this round.*Open a reference run under Analysis/);
    expect(screen.getByText('Open reference run', { selector: 'summary' })).toBeTruthy();
  });

  it('offers Analyze on an architecture the runtime covers', () => {
    renderWith('Qwen3MoeForCausalLM');
    expect((screen.getByRole('button', { name: 'Analyze' }) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByTestId('reference-only-note')).toBeNull();
  });
});
