// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SyntheticEngine } from '../../engine-link/synthetic/synthetic-engine.ts';
import { DEFAULT_ANALYSIS_KNOBS, DEFAULT_CRANE_SETTINGS } from '../../protocol.ts';
import { analyzedEngine, renderWithStore } from '../../testing/render-with-store.tsx';
import { EvaluationFields } from '../analysis/EvaluationFields.tsx';
import { MethodComparison } from '../compare/MethodComparison.tsx';
import { PreviewPanel } from './PreviewPanel.tsx';

afterEach(cleanup);

const calibration = { reasoning: '/d/r.jsonl', agent: '/d/a.jsonl', format: '/d/f.jsonl' };
const evalFiles = { source: 'files', reasoning: '/d/eval/reasoning-eval.jsonl', agent: '/d/eval/tools-eval.jsonl' } as const;
const label = () => screen.getByTestId('measured-on').textContent;

describe('where Verify measures, in the UI', () => {
  it('says the calibration sets by default, then what the analysis settings name, then what the result was measured on', async () => {
    const engine = new SyntheticEngine({ layers: 2, experts: 0 }, 0);
    const { store, actions } = renderWithStore(<MethodComparison />, engine);
    act(() => store.getState().setAnalysisSettings({ calibration, ...DEFAULT_ANALYSIS_KNOBS }));
    expect(label()).toBe('Verify measures on: the calibration sets themselves (the sequences the gradients used)');
    act(() => store.getState().setAnalysisSettings({ calibration, ...DEFAULT_ANALYSIS_KNOBS, evaluation: { source: 'held-out', fraction: 0.25 } }));
    expect(label()).toBe('Verify measures on: held-out 25% of the calibration sets');
    await engine.call('analyze', { projectDir: '/p', settings: { calibration, ...DEFAULT_ANALYSIS_KNOBS, evaluation: evalFiles } });
    await act(() => actions.verify('ties'));
    expect(label()).toBe('measured on: eval files reasoning-eval.jsonl + tools-eval.jsonl');
  });

  it('labels the preview panel’s Verify with the set CRANE was measured on', async () => {
    const engine = await analyzedEngine(2);
    const { store, actions } = renderWithStore(<PreviewPanel />, engine);
    act(() => store.getState().updateSettings(DEFAULT_CRANE_SETTINGS));
    await act(() => actions.verify('crane'));
    expect(label()).toBe('measured on: held-out 20% of the calibration sets');
  });

  it('edits the evaluation set: a held-out share, or two evaluation files', () => {
    const { store } = renderWithStore(<EvaluationFields />);
    act(() => store.getState().setAnalysisSettings({ calibration, ...DEFAULT_ANALYSIS_KNOBS }));
    const source = screen.getByLabelText('Verify measures on');
    fireEvent.change(source, { target: { value: 'held-out' } });
    expect(store.getState().analysis.settings.evaluation).toEqual({ source: 'held-out', fraction: 0.25 });
    fireEvent.change(screen.getByLabelText(/Held-out share/), { target: { value: '0.4' } });
    expect(store.getState().analysis.settings.evaluation).toEqual({ source: 'held-out', fraction: 0.4 });
    fireEvent.change(source, { target: { value: 'files' } });
    fireEvent.change(screen.getByLabelText(/Evaluation chats for L_R/), { target: { value: '/e/r.jsonl' } });
    fireEvent.change(screen.getByLabelText(/Evaluation chats for L_A/), { target: { value: '/e/a.jsonl' } });
    expect(store.getState().analysis.settings.evaluation).toEqual({ source: 'files', reasoning: '/e/r.jsonl', agent: '/e/a.jsonl' });
  });
});
