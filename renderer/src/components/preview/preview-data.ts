/** Chart rows of the preview: the predicted curves and the measured (Verify) points. */
import { settingsKey, shortHash } from '../../lib/settings-key.ts';
import type { CraneSettings, Preview, VerifyResult } from '../../protocol.ts';
import { describeSettings } from './run-history.ts';

export interface CurveRow {
  readonly alpha: number;
  readonly reasoning: number;
  readonly agent: number;
}

export interface MeasuredPoint {
  readonly alpha: number;
  readonly reasoning: number;
  readonly agent: number;
  /** Measured with every other setting as set now (only α may differ: the curve's axis). */
  readonly current: boolean;
  /** What it was measured at, in a line (the run history's, with its hash), for the chart's read-out. */
  readonly settings: string;
}

export function curveRows(preview: Preview): CurveRow[] {
  const { alphas, deltaLossReasoning, deltaLossAgent } = preview.curve;
  return Array.from(alphas, (alpha, i) => ({ alpha, reasoning: deltaLossReasoning[i] ?? NaN, agent: deltaLossAgent[i] ?? NaN }));
}

/** Same points: an α move leaves the curve as it was (only its marker moves), so the chart keeps its rows. */
export function sameCurve(a: readonly CurveRow[], b: readonly CurveRow[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const [p, q] = [a[i], b[i]];
    if (p === undefined || q === undefined || !Object.is(p.alpha, q.alpha) || !Object.is(p.reasoning, q.reasoning) || !Object.is(p.agent, q.agent)) return false;
  }
  return true;
}

/**
 * ΔL_R and ΔL_A at `alpha`, read off the curve by linear interpolation; null outside it. For
 * fixed other settings ΔL is a parabola in α (first order plus curvature), so between the
 * curve's points (every 0.05) this is the engine's value to within the chord's sag, available
 * the moment α moves; the engine's exact value follows in the read-out.
 */
export function curveAt(rows: readonly CurveRow[], alpha: number): { reasoning: number; agent: number } | null {
  const first = rows[0];
  const last = rows.at(-1);
  if (first === undefined || last === undefined || !(alpha >= first.alpha && alpha <= last.alpha)) return null;
  let hi = 1;
  while (hi < rows.length - 1 && (rows[hi]?.alpha ?? Infinity) < alpha) hi++;
  const b = rows[Math.min(hi, rows.length - 1)] ?? last;
  const a = rows[Math.min(hi, rows.length - 1) - 1] ?? first;
  const span = b.alpha - a.alpha;
  const t = span > 0 ? (alpha - a.alpha) / span : 0;
  return { reasoning: a.reasoning + t * (b.reasoning - a.reasoning), agent: a.agent + t * (b.agent - a.agent) };
}

/**
 * [min, max, step] for an axis over `values`: the range rounded out to a 1-2-5 step of about a
 * fifth of the span, so it stays the same while the values move within it, and ticks at each
 * step are round numbers. NaN and ±∞ are ignored.
 */
export function niceRange(values: readonly number[]): [number, number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [-1, 1, 0.5];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (hi - lo <= Math.max(Math.abs(hi), Math.abs(lo)) * 1e-9) {
    const pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.1 : 1;
    [lo, hi] = [lo - pad, hi + pad];
  }
  const rough = (hi - lo) / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  return [roundToStep(Math.floor(lo / step) * step, step), roundToStep(Math.ceil(hi / step) * step, step), step];
}

/** Ticks from min to max every step, each rounded like the range (0, not 1.1e-16). */
export function niceTicks(min: number, max: number, step: number): number[] {
  return Array.from({ length: Math.round((max - min) / step) + 1 }, (_, i) => roundToStep(min + i * step, step));
}

/** Rounded to the step's own precision, so values print as 0.5, not 0.49999999999999994. */
function roundToStep(value: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(Math.min(20, digits)));
}

/**
 * Measured ΔL = edited − base, for CRANE results (the only ones with an α). A point belongs to
 * the curve on screen when it was measured with the same settings but α (the curve sweeps α).
 */
export function measuredPoints(results: readonly VerifyResult[], settings: CraneSettings): MeasuredPoint[] {
  const curveKey = settingsKey({ ...settings, alpha: 0 });
  return results.flatMap((r) =>
    r.method.method === 'crane'
      ? [{
          alpha: r.method.settings.alpha,
          reasoning: r.edited.reasoning - r.base.reasoning,
          agent: r.edited.agent - r.base.agent,
          current: settingsKey({ ...r.method.settings, alpha: 0 }) === curveKey,
          settings: `${describeSettings(r.method)} #${shortHash(settingsKey(r.method))}`,
        }]
      : [],
  );
}

/**
 * The losses the analysis measured at its default settings (α aside), as chart points. Not
 * `current`: they stay at the defaults whatever the sliders say.
 */
export function anchorPoints(range: Preview['range']): MeasuredPoint[] {
  if (range === null) return [];
  const settings = `analysis defaults but α, ${range.split} split`;
  return range.anchors.map((a) => ({ alpha: a.alpha, reasoning: a.measured.reasoning, agent: a.measured.agent, current: false, settings }));
}
