import { describe, expect, it } from 'vitest';
import type { MergeMethod, VerifyResult } from '../../protocol.ts';
import { createAppStore } from '../../store/app-store.ts';
import { methodOf } from '../../store/methods-slice.ts';
import { bestMethods } from './best-results.ts';

function measured(method: MergeMethod, dR: number, dA: number): VerifyResult {
  return { method, measuredOn: { source: 'calibration' }, edited: { reasoning: 1 + dR, agent: 0.5 + dA }, base: { reasoning: 1, agent: 0.5 }, tokens: { reasoning: 1, agent: 1 }, seconds: 1 };
}

describe('best measured methods', () => {
  it('marks the lowest ΔL_R and the lowest ΔL_A among results at the current settings', () => {
    const store = createAppStore();
    const s = () => store.getState();
    s().addMeasured(measured(methodOf(s(), 'crane'), -0.3, 0.01));
    expect(bestMethods(s())).toEqual({ reasoning: null, agent: null });
    s().addMeasured(measured(methodOf(s(), 'ties'), -0.2, -0.02));
    s().addMeasured(measured(methodOf(s(), 'task_arithmetic'), -0.1, 0.0));
    expect(bestMethods(s())).toEqual({ reasoning: 'crane', agent: 'ties' });
    // TIES at another density: its result no longer counts, Task Arithmetic's ΔL_A is now the lowest.
    s().setMethodParameter('ties', 'density', 0.9);
    expect(bestMethods(s())).toEqual({ reasoning: 'crane', agent: 'task_arithmetic' });
    // CRANE at another α: only Task Arithmetic is current, nothing to compare it with.
    s().updateSettings({ alpha: 0.9 });
    expect(bestMethods(s())).toEqual({ reasoning: null, agent: null });
  });
});
