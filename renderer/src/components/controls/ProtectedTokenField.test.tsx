// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticPair } from '../../engine-link/synthetic/synthetic-pair.ts';
import { ready } from '../../store/slice.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { ProtectedTokenField } from './ProtectedTokenField.tsx';

afterEach(cleanup);

function renderWithPair() {
  const rendered = renderWithStore(<ProtectedTokenField />);
  act(() => rendered.store.getState().setPairSummary(ready(syntheticPair('/m/i', '/m/t', { layers: 2, experts: 0 }))));
  return rendered;
}

const edit = (text: string) => {
  const input = screen.getByLabelText(/Protect ids/);
  fireEvent.change(input, { target: { value: text } });
  fireEvent.keyDown(input, { key: 'Enter' });
};

describe('<ProtectedTokenField>', () => {
  it('shows the pair\'s protected rows and think rows', () => {
    renderWithPair();
    expect(screen.getByTestId('protected-rows').textContent).toBe('Protected lm_head rows (kept at θ_I): 151643–151666 · think rows 151667–151668');
  });

  it('adds and releases ids, stores them in the settings and shows the resulting rows', () => {
    const { store } = renderWithPair();
    edit('+151669, -151650');
    expect(store.getState().settings.current.special.protectedTokens).toEqual({ add: [151669], remove: [151650] });
    expect(screen.getByTestId('protected-rows').textContent).toContain('151643–151649, 151651–151666, 151669 ·');
    expect((screen.getByLabelText(/Protect ids/) as HTMLInputElement).value).toBe('+151669, -151650');
    edit('');
    expect(store.getState().settings.current.special).not.toHaveProperty('protectedTokens');
  });

  it('names text that is not an edit and leaves the settings alone', () => {
    const { store } = renderWithPair();
    edit('+12, seven');
    expect(screen.getByRole('alert').textContent).toContain('"seven" is not a token id edit');
    expect(store.getState().settings.current.special.protectedTokens).toBeUndefined();
  });
});
