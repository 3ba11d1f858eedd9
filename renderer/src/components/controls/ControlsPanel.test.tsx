// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { ControlsPanel } from './ControlsPanel.tsx';

afterEach(cleanup);

const setAlpha = (value: string) => fireEvent.change(screen.getByLabelText('α value'), { target: { value } });

describe('<ControlsPanel>', () => {
  it('undoes and redoes with the buttons', () => {
    const { store } = renderWithStore(<ControlsPanel />);
    const undo = screen.getByRole('button', { name: 'Undo' }) as HTMLButtonElement;
    const redo = screen.getByRole('button', { name: 'Redo' }) as HTMLButtonElement;
    expect(undo.disabled).toBe(true);
    setAlpha('0.4');
    expect(store.getState().settings.current.alpha).toBe(0.4);
    fireEvent.click(undo);
    expect(store.getState().settings.current.alpha).toBe(0.25);
    expect((screen.getByLabelText('α value') as HTMLInputElement).value).toBe('0.25');
    fireEvent.click(redo);
    expect(store.getState().settings.current.alpha).toBe(0.4);
  });

  it('undoes with Ctrl+Z outside text fields', async () => {
    const { App } = await import('../app/App.tsx');
    const { store } = renderWithStore(<App />);
    act(() => store.getState().updateSettings({ alpha: 0.5 }));
    fireEvent.keyDown(window, { key: 'z', ctrlKey: true });
    expect(store.getState().settings.current.alpha).toBe(0.25);
    fireEvent.keyDown(window, { key: 'z', ctrlKey: true, shiftKey: true });
    expect(store.getState().settings.current.alpha).toBe(0.5);
  });

  it('clamps typed values to the slider range', () => {
    const { store } = renderWithStore(<ControlsPanel />);
    setAlpha('7');
    expect(store.getState().settings.current.alpha).toBe(1);
  });

  it('applies the paper presets', () => {
    const { store } = renderWithStore(<ControlsPanel />);
    setAlpha('0.9');
    fireEvent.click(screen.getByRole('button', { name: 'Paper: Qwen3-Next-80B' }));
    expect(store.getState().settings.current.alpha).toBe(0.15);
    fireEvent.click(screen.getByRole('button', { name: 'Paper: Qwen3-30B-A3B' }));
    expect(store.getState().settings.current.alpha).toBe(0.25);
  });

  it('keeps k = 4.6/τ while τ moves, until k is set by hand', () => {
    const { store } = renderWithStore(<ControlsPanel />);
    fireEvent.change(screen.getByLabelText('τ value'), { target: { value: '0.05' } });
    expect(store.getState().settings.current.steepness).toBeCloseTo(92, 6);
    fireEvent.change(screen.getByLabelText('k value'), { target: { value: '40' } });
    fireEvent.change(screen.getByLabelText('τ value'), { target: { value: '0.1' } });
    expect(store.getState().settings.current.steepness).toBe(40);
    fireEvent.click(screen.getByRole('button', { name: 'Reset k to 4.6/τ' }));
    expect(store.getState().settings.current.steepness).toBeCloseTo(46, 6);
  });

  it('toggles stages', () => {
    const { store } = renderWithStore(<ControlsPanel />);
    fireEvent.click(screen.getByRole('checkbox', { name: 'GSP' }));
    expect(store.getState().settings.current.stages).toEqual({ threshold: true, gate: true, gsp: false });
  });

  it('overrides and locks the selected block, and lists overrides', () => {
    const { store } = renderWithStore(<ControlsPanel />);
    expect(screen.getByText(/Select a block in the heatmap/)).toBeTruthy();
    act(() => store.getState().select({ layer: 3, group: 'attention' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Lock (keep θ_I)' }));
    expect(store.getState().settings.current.overrides).toEqual([{ block: { layer: 3, group: 'attention' }, gate: null, locked: true }]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Override gate' }));
    fireEvent.change(screen.getByLabelText('Gate S value'), { target: { value: '0.7' } });
    expect(store.getState().settings.current.overrides[0]).toMatchObject({ gate: 0.7, locked: true });
    expect(screen.getByText('Overrides (1)')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Remove override of layer 3 attention' }));
    expect(store.getState().settings.current.overrides).toEqual([]);
  });
});
