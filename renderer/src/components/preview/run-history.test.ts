import { describe, expect, it } from 'vitest';
import { DEFAULT_CRANE_SETTINGS, type MergeMethod, type VerifyResult } from '../../protocol.ts';
import { settingsKey } from '../../lib/settings-key.ts';
import { describeSettings, formatRunTime, runRows } from './run-history.ts';

const crane = (alpha: number, overrides = DEFAULT_CRANE_SETTINGS.overrides): MergeMethod => ({ method: 'crane', settings: { ...DEFAULT_CRANE_SETTINGS, alpha, overrides } });
const ties: MergeMethod = { method: 'ties', lambda: 0.3, density: 0.5 };

function result(method: MergeMethod, edited: number, extra: Partial<VerifyResult> = {}): VerifyResult {
  return {
    method,
    measuredOn: { source: 'calibration' },
    edited: { reasoning: edited, agent: 0.4 },
    base: { reasoning: 1.5, agent: 0.38 },
    tokens: { reasoning: 10, agent: 5 },
    seconds: 3,
    ...extra,
  };
}

describe('run history rows', () => {
  it('lists every run newest first with its settings, prediction, measured ΔL and time', () => {
    const runs = [
      result(crane(0.3), 1.2, { predicted: { reasoning: -0.25, agent: 1e-5 }, finishedAt: '2026-12-01T16:00:00.000Z' }),
      result(ties, 1.4, { predicted: null, finishedAt: '2026-12-01T16:05:00.000Z' }),
      // Saved before predictions and times were kept.
      result(crane(0.5), 1.1),
    ];
    const rows = runRows(runs, { crane: settingsKey(crane(0.3)), ties: settingsKey({ ...ties, density: 0.6 }) });
    expect(rows.map((r) => r.method)).toEqual(['CRANE', 'TIES', 'CRANE']);
    expect(rows.map((r) => r.current)).toEqual([false, false, true]);
    const [old, baseline, first] = rows;
    expect(first?.predicted).toEqual({ reasoning: -0.25, agent: 1e-5 });
    expect(first?.measured.reasoning).toBeCloseTo(-0.3, 12);
    expect(first?.measured.agent).toBeCloseTo(0.02, 12);
    expect(first?.finishedAt).toBe('2026-12-01T16:00:00.000Z');
    expect(first?.settings).toBe('α 0.3 · q 0.5 · τ 0.03 · k 153 · coarse');
    expect(baseline?.settings).toBe('λ 0.3 · density 0.5');
    expect(baseline?.predicted).toBeNull();
    expect(old?.predicted).toBeNull();
    expect(old?.finishedAt).toBeNull();
    // Different settings, different hashes; the same settings, the same hash.
    expect(first?.hash).not.toBe(old?.hash);
    expect(runRows([runs[0] as VerifyResult], {})[0]?.hash).toBe(first?.hash);
  });

  it('names what deviates from the plain edit: stages off, overrides, bf16 reference arithmetic', () => {
    const settings = { ...DEFAULT_CRANE_SETTINGS, stages: { threshold: true, gate: false, gsp: false }, arith: 'reference' as const };
    const overrides = [{ block: { layer: 1, group: 'attention' }, gate: null, locked: true }];
    expect(describeSettings({ method: 'crane', settings: { ...settings, overrides } })).toBe('α 0.25 · q 0.5 · τ 0.03 · k 153 · coarse · gate, gsp off · 1 override · bf16 reference');
  });

  it('prints the time of day for today’s runs and the date for older ones', () => {
    const now = new Date(2026, 11, 1, 18, 0, 0);
    expect(formatRunTime(new Date(2026, 11, 1, 9, 5, 7).toISOString(), now)).toBe('09:05:07');
    expect(formatRunTime(new Date(2026, 10, 30, 23, 59, 0).toISOString(), now)).toBe('2026-11-30 23:59');
    expect(formatRunTime(null, now)).toBe('—');
    expect(formatRunTime('not a time', now)).toBe('—');
  });
});
