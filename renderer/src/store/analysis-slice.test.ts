import { describe, expect, it } from 'vitest';
import { createAppStore } from './app-store.ts';

describe('analysis slice', () => {
  it('tracks progress, completion, cache state and interruption per stage', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().applyStageStates([
      { stage: 'gates', state: 'cached' },
      { stage: 'gradients', state: 'stale' },
    ]);
    expect(s().analysis.stages.gates.state).toBe('cached');
    expect(s().analysis.stages.gradients.state).toBe('stale');
    s().analysisStarted();
    s().applyProgress({ requestId: 1, stage: 'projectors', fraction: 0.4, etaSeconds: 30 });
    expect(s().analysis.stages.projectors).toMatchObject({ state: 'running', fraction: 0.4, etaSeconds: 30 });
    s().applyStageDone({ requestId: 1, stage: 'projectors', cached: false, seconds: 12 });
    expect(s().analysis.stages.projectors).toMatchObject({ state: 'done', fraction: 1, seconds: 12 });
    s().applyProgress({ requestId: 1, stage: 'gradients', fraction: 0.1, etaSeconds: null });
    s().analysisEnded('cancelled', { code: 'cancelled', message: 'stop' });
    expect(s().analysis.status).toBe('cancelled');
    expect(s().analysis.stages.gradients.state).toBe('missing');
    expect(s().analysis.stages.projectors.state).toBe('done');
    // The engine's events from before it saw the cancel arrive late: the stage stays stopped.
    s().applyProgress({ requestId: 1, stage: 'gradients', fraction: 0.07, etaSeconds: 90 });
    s().applyStageDone({ requestId: 1, stage: 'gradients', cached: false, seconds: 3 });
    expect(s().analysis.stages.gradients).toMatchObject({ state: 'missing', fraction: 0 });
  });

  it('clears a failed run\'s error once its settings change', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().analysisStarted();
    s().analysisEnded('error', { code: 'not-found', message: '/data/reasoning.jsonl: file not found' });
    s().setAnalysisSettings({ ...s().analysis.settings, calibration: { ...s().analysis.settings.calibration, reasoning: '/data/r.jsonl' } });
    expect(s().analysis).toMatchObject({ status: 'idle', error: null });
  });

  it('ignores verify/export progress and caps the log', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().applyProgress({ requestId: 1, stage: 'export', fraction: 0.5, etaSeconds: 1 });
    expect(Object.values(s().analysis.stages).every((v) => v.state === 'missing')).toBe(true);
    for (let i = 0; i < 600; i++) s().appendLog({ level: 'info', message: `line ${i}`, requestId: null });
    expect(s().analysis.logs).toHaveLength(500);
    expect(s().analysis.logs.at(-1)?.message).toBe('line 599');
  });
});
