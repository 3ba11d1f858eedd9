/** Number and duration formatting shared by the views (byte sizes: formatBytes from the protocol entry). */
/**
 * `digits` significant digits (3 by default) everywhere in the studio; exponent form only below
 * 1e-3, where a fixed form would need a run of zeros (1.2e-4, but 0.0123 and 123000).
 */
export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return '—';
  if (value === 0) return '0';
  if (Math.abs(value) < 1e-3) return value.toExponential(digits - 1);
  return Number(value.toPrecision(digits)).toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

export function formatSigned(value: number, digits = 3): string {
  const text = formatNumber(value, digits);
  return value > 0 ? `+${text}` : text;
}

export function formatSeconds(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const formatPercent = (fraction: number): string => `${(100 * fraction).toFixed(fraction < 0.1 ? 1 : 0)}%`;
