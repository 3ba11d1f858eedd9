/**
 * The run history as the preview's table shows it: one row per Verify (every method), newest
 * first, with the exact settings it measured, what the preview predicted for them, what was
 * measured, and when. The rows come from the project's measured results (project.json keeps
 * them), so the history survives a reload.
 */
import { METHOD_LABELS } from '../../lib/merge-methods.ts';
import { formatNumber } from '../../lib/format.ts';
import { settingsKey, shortHash } from '../../lib/settings-key.ts';
import { parametersOf, type MergeMethod, type VerifyResult } from '../../protocol.ts';

export interface LossPair {
  readonly reasoning: number;
  readonly agent: number;
}

export interface RunRow {
  /** Unique within the history: the result's position in the project's list. */
  readonly id: number;
  readonly method: string;
  /** The settings in a line ("α 0.3 · q 0.5 · τ 0.03 …") and their hash, as the other views print it. */
  readonly settings: string;
  readonly hash: string;
  /** The whole settings, for the row's tooltip. */
  readonly settingsJson: string;
  /** Measured at the settings on screen now (per method: CRANE's sliders, a baseline's form). */
  readonly current: boolean;
  /** ΔL the preview predicted; null for baselines and for results saved before predictions were kept. */
  readonly predicted: LossPair | null;
  /** Measured ΔL = edited − Instruct. */
  readonly measured: LossPair;
  /** ISO time the run ended; null for results saved before times were kept. */
  readonly finishedAt: string | null;
}

/** The settings of a method in a line: CRANE's knobs (and what deviates from the plain edit), a baseline's parameters. */
export function describeSettings(method: MergeMethod): string {
  if (method.method === 'crane') {
    const s = method.settings;
    const off = (['threshold', 'gate', 'gsp'] as const).filter((stage) => !s.stages[stage]);
    const overrides = s.overrides.length;
    return [
      `α ${formatNumber(s.alpha)}`,
      `q ${formatNumber(s.keepQuantile)}`,
      `τ ${formatNumber(s.tau)}`,
      `k ${formatNumber(s.steepness)}`,
      s.granularity,
      ...(off.length > 0 ? [`${off.join(', ')} off`] : []),
      ...(overrides > 0 ? [`${overrides} override${overrides === 1 ? '' : 's'}`] : []),
      ...(s.arith === 'reference' ? ['bf16 reference'] : []),
    ].join(' · ');
  }
  const values = method as Readonly<Record<string, unknown>>;
  return parametersOf(method.method)
    .filter((p) => p.kind !== 'path')
    .map((p) => `${p.label.replace(/\s*\(.*\)$/, '')} ${typeof values[p.key] === 'number' ? formatNumber(values[p.key] as number) : String(values[p.key])}`)
    .join(' · ');
}

/** Newest first. `currentKeys`: each method's settings key as set on screen now. */
export function runRows(results: readonly VerifyResult[], currentKeys: Readonly<Partial<Record<MergeMethod['method'], string>>>): RunRow[] {
  return results
    .map((r, id) => {
      const key = settingsKey(r.method);
      return {
        id,
        method: METHOD_LABELS[r.method.method],
        settings: describeSettings(r.method),
        hash: shortHash(key),
        settingsJson: JSON.stringify(r.method, null, 1),
        current: currentKeys[r.method.method] === key,
        predicted: r.predicted ?? null,
        measured: { reasoning: r.edited.reasoning - r.base.reasoning, agent: r.edited.agent - r.base.agent },
        finishedAt: r.finishedAt ?? null,
      };
    })
    .reverse();
}

/** "14:03:27" today, "2026-11-30 14:03" on another day (local time); "—" when unknown. */
export function formatRunTime(iso: string | null, now: Date = new Date()): string {
  if (iso === null) return '—';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '—';
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(t.getHours())}:${pad(t.getMinutes())}`;
  return t.toDateString() === now.toDateString() ? `${clock}:${pad(t.getSeconds())}` : `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${clock}`;
}
