// @vitest-environment happy-dom
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticPair } from '../../engine-link/synthetic/synthetic-pair.ts';
import { ready } from '../../store/slice.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { SpecialTensorControls } from './SpecialTensorControls.tsx';

afterEach(cleanup);

describe('<SpecialTensorControls>', () => {
  it.each([
    [0, false],
    [8, true],
  ])('a pair with %i experts shows the Router setting: %s', (experts, shown) => {
    const { store } = renderWithStore(<SpecialTensorControls />);
    act(() => store.getState().setPairSummary(ready(syntheticPair('/m/i', '/m/t', { layers: 2, experts }))));
    expect(screen.queryByText('Router') !== null).toBe(shown);
    expect(screen.getByText(shown ? 'Router, think rows, lm_head' : 'Think rows, lm_head')).toBeTruthy();
    expect(screen.getByText('<think> rows')).toBeTruthy();
  });
});
