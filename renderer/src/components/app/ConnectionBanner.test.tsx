// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';

afterEach(cleanup);

describe('<ConnectionBanner>', () => {
  it('while the engine is away: says why, that it reconnects by itself, and Retry now starts the next attempt', () => {
    const { store } = renderWithStore(<ConnectionBanner />);
    let retries = 0;
    act(() => {
      store.getState().setReconnectNow(() => (retries += 1));
      store.getState().setConnection({ status: 'reconnecting', message: 'the engine process ended', retryInMs: 4000 });
    });
    expect(screen.getByRole('alert').textContent).toMatch(/the engine process ended\. Reconnecting by itself \(next attempt in 4 s\)/);
    fireEvent.click(screen.getByRole('button', { name: 'Retry now' }));
    expect(retries).toBe(1);
    act(() => store.getState().setConnection({ status: 'open', message: null, retryInMs: null }));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
