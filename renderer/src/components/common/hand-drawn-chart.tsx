/**
 * What the charts that draw their moving parts by hand (preview, spectrum) share. recharts draws
 * only what stays put (axes, grid, legend); curves, markers and lines that follow a slider are
 * drawn with its scale hooks and carry the paint probe, so a slider move never re-runs recharts'
 * store. recharts' legend lists only its own series, so the hand-drawn ones are added to it here.
 */
import type { ReactNode } from 'react';
import { DefaultLegendContent, type LegendPayload } from 'recharts';
import { PAINT_PROBE_ATTRIBUTE } from '../../lib/latency.ts';

/** Spread on a hand-drawn element: the slider-to-paint sample ends at the frame it changes in. */
export const PAINT_PROBE = { [PAINT_PROBE_ATTRIBUTE]: '' };
export const AXIS_TICK = { fill: 'var(--muted)', fontSize: 11 };
export const LEGEND_STYLE = { fontSize: 12 };

type LegendProps = Parameters<typeof DefaultLegendContent>[0];

/** Legend content: the hand-drawn series `before` and `after` the ones recharts draws itself. */
export function legendWithHandDrawn(before: readonly LegendPayload[], after: readonly LegendPayload[] = []): (props: LegendProps) => ReactNode {
  return function HandDrawnLegend(props: LegendProps) {
    return <DefaultLegendContent {...props} payload={[...before, ...(props.payload ?? []), ...after]} />;
  };
}
