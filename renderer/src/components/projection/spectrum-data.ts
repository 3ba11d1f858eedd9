/** Chart rows for one spectrum: σ_i/σ₁ and the mask weight w_i at the current τ and k. */
import { maskWeight } from '../../protocol.ts';

export interface SpectrumRow {
  /** 1-based direction index (log x axis). */
  readonly index: number;
  readonly ratio: number;
  readonly weight: number;
}

export function spectrumRows(sigmaRatio: ArrayLike<number>, tau: number, steepness: number): SpectrumRow[] {
  const rows: SpectrumRow[] = [];
  for (let i = 0; i < sigmaRatio.length; i++) {
    const ratio = sigmaRatio[i] ?? 0;
    rows.push({ index: i + 1, ratio: Math.max(ratio, 1e-6), weight: maskWeight(ratio, tau, steepness) });
  }
  return rows;
}

/** Directions with w ≥ 0.5, i.e. σ_i/σ₁ ≥ τ: the ones the mask mostly removes. */
export function directionsAboveTau(sigmaRatio: ArrayLike<number>, tau: number): number {
  let n = 0;
  for (let i = 0; i < sigmaRatio.length; i++) if ((sigmaRatio[i] ?? 0) >= tau) n++;
  return n;
}
