/**
 * What the charts that draw their moving parts by hand (preview, spectrum) share. recharts draws
 * only what stays put (axes, grid, legend); curves, markers and lines that follow a slider are
 * drawn with its scale hooks and carry the paint probe, so a slider move never re-runs recharts'
 * store. recharts' legend lists only its own series, so the hand-drawn ones are added to it here.
 * The hover read-outs are hand-drawn too: a transparent area over the plot reports the x value
 * under the pointer.
 */
import { useMemo, type MouseEvent, type ReactNode } from 'react';
import { Curve, DefaultLegendContent, DefaultZIndexes, useXAxisInverseScale, useXAxisScale, useYAxisScale, ZIndexLayer, type LegendPayload, type PlotArea } from 'recharts';
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

export interface ScaledCurveProps<K extends string> {
  readonly rows: readonly Readonly<Record<K, number>>[];
  /** The row fields plotted on the x axis and on the y axis `yAxisId`. */
  readonly x: K;
  readonly y: K;
  readonly yAxisId: string;
  readonly type: 'linear' | 'monotone';
  readonly color: string;
  /** Attributes of the curve's group (class, test id, data-*); it also carries the paint probe. */
  readonly group: Readonly<Record<string, string>>;
}

/** `rows` as a curve on the chart's scales, redrawn only when the rows or a scale change. */
export function ScaledCurve<K extends string>({ rows, x, y, yAxisId, type, color, group }: ScaledCurveProps<K>) {
  const xScale = useXAxisScale();
  const yScale = useYAxisScale(yAxisId);
  const points = useMemo(
    () => (xScale === undefined || yScale === undefined ? [] : rows.map((r) => ({ x: xScale(r[x]) ?? null, y: yScale(r[y]) ?? null }))),
    [rows, xScale, yScale, x, y],
  );
  if (points.length === 0) return null;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.line}>
      <g {...group} {...PAINT_PROBE}>
        <Curve type={type} points={points} stroke={color} strokeWidth={2} fill="none" />
      </g>
    </ZIndexLayer>
  );
}

/** A transparent area over the plot: `onHover` gets the x-axis value under the pointer, null when it leaves or has none. */
export function HoverArea({ area, onHover }: { area: PlotArea; onHover: (x: number | null) => void }) {
  const invert = useXAxisInverseScale();
  if (invert === undefined) return null;
  const onMove = (e: MouseEvent<SVGRectElement>) => {
    const box = e.currentTarget.ownerSVGElement?.getBoundingClientRect();
    const value = box === undefined ? NaN : Number(invert(e.clientX - box.left));
    onHover(Number.isFinite(value) ? value : null);
  };
  return <rect x={area.x} y={area.y} width={area.width} height={area.height} fill="transparent" onMouseMove={onMove} onMouseLeave={() => onHover(null)} />;
}
