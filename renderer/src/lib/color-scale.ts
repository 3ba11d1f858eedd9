/**
 * Colour scales of the heatmaps. Sequential metrics (gates, norms, shares) use a perceptually
 * ordered ramp from low to high; signed metrics (Σs_R, Σs_A) use a diverging ramp centred on 0.
 */
export type Rgb = readonly [number, number, number];
export type ScaleKind = 'sequential' | 'diverging';

export interface ColorScale {
  readonly kind: ScaleKind;
  readonly min: number;
  readonly max: number;
}

// Viridis-like stops (dark purple → teal → yellow): readable in light and dark themes.
const SEQUENTIAL: readonly Rgb[] = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
// Blue → neutral grey → red.
const DIVERGING: readonly Rgb[] = [
  [33, 102, 172],
  [146, 197, 222],
  [220, 220, 220],
  [244, 165, 130],
  [178, 24, 43],
];

/** The domain of a metric: min..max, or symmetric ±max|v| for diverging; NaNs ignored. */
export function scaleFor(values: ArrayLike<number>, kind: ScaleKind): ColorScale {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? NaN;
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) return { kind, min: 0, max: 1 };
  if (kind === 'diverging') {
    const m = Math.max(Math.abs(min), Math.abs(max)) || 1;
    return { kind, min: -m, max: m };
  }
  return { kind, min, max: max > min ? max : min + 1 };
}

/** Position of a value in the domain, clamped to [0, 1]. */
export function scalePosition(scale: ColorScale, value: number): number {
  const t = (value - scale.min) / (scale.max - scale.min);
  return Math.min(1, Math.max(0, t));
}

export function colorAt(scale: ColorScale, value: number): Rgb {
  if (!Number.isFinite(value)) return [128, 128, 128];
  return rampColor(scale.kind === 'diverging' ? DIVERGING : SEQUENTIAL, scalePosition(scale, value));
}

export function rampColor(stops: readonly Rgb[], t: number): Rgb {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = stops[i] as Rgb;
  const b = stops[i + 1] as Rgb;
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}

export const cssColor = ([r, g, b]: Rgb): string => `rgb(${r}, ${g}, ${b})`;

/** A CSS gradient of the scale, for the legend. */
export function legendGradient(kind: ScaleKind): string {
  const stops = kind === 'diverging' ? DIVERGING : SEQUENTIAL;
  return `linear-gradient(to right, ${stops.map((s, i) => `${cssColor(s)} ${(100 * i) / (stops.length - 1)}%`).join(', ')})`;
}
