/**
 * A looped model's per-pass format spectra for the spectrum chart: each pass's σᵢ/σ₁ (its own
 * σ₁) at one layer and key, to lay over the pooled spectrum the projectors use.
 */
import type { ActivationKey } from '../../protocol.ts';
import type { PassMetrics } from '../../store/passes-slice.ts';

export interface PassSpectrumSeries {
  /** 0-based pass. */
  readonly pass: number;
  readonly rows: readonly { readonly index: number; readonly ratio: number }[];
}

export function passSpectrumSeries(metrics: PassMetrics | null, layer: number, key: ActivationKey): PassSpectrumSeries[] {
  if (metrics === null) return [];
  return metrics.spectra
    .filter((s) => s.layer === layer && s.key === key && s.pass !== null && s.sigma.length > 0)
    .map((s) => {
      const first = s.sigma[0] as number;
      return { pass: s.pass as number, rows: s.sigma.map((sigma, i) => ({ index: i + 1, ratio: Math.max(first > 0 ? sigma / first : 0, 1e-6) })) };
    });
}
