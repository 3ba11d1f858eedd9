/**
 * Predicted ΔL_R and ΔL_A against α, a marker at the current α, and measured points from Verify.
 *
 * Drawn for live sliders. recharts 3 keeps series, axes and legend in a store, and any change
 * there (a series' new data, a chart re-render re-reporting its props, a ReferenceLine or
 * ReferenceDot, which re-register on every render) re-runs its selectors, tick layout and text
 * measurement: 25–40 ms a change on a 2-core machine, before the frame can paint. So recharts
 * draws only what stays put — the axes (explicit, rounded-out domains), the grid, the legend and
 * the measured points — in a chart element that changes only with its size, the y range or the
 * measured points. The two curves, the α marker, the zero line and the hover read-out are drawn
 * here with the axes' scales and re-render alone through a context:
 *   - moving α leaves the curve as it is (a function of α alone; PreviewPanel keeps the rows of an
 *     unchanged curve), so only `AlphaMarker`, subscribed to α itself, re-renders, reading ΔL at
 *     the new α off the curve: no engine round trip and no chart work between slider and paint;
 *   - a new curve (τ, k, q, toggles…) redraws the two paths, and the axes only when the rounded
 *     y range changes.
 * The curves and the marker carry `data-paint-probe`: the slider-to-paint sample is the first
 * frame painted after one of them changed in the DOM.
 * Each loss has its own y axis (ΔL_R left, ΔL_A right, each in its series' colour): on the demo
 * pair ΔL_A is about 10⁴× smaller than ΔL_R, and on a shared axis its curve reads as flat zero.
 * From the analysis (they change only with it): the α beyond the last measured anchor the model
 * agrees with is shaded as extrapolation, and the anchors are drawn as crosses. Hovering near a
 * measured point (Verify's or an anchor) adds its values and the settings it was measured at to
 * the read-out.
 */
import { createContext, memo, useContext, useMemo, useRef, useState } from 'react';
import { CartesianGrid, ComposedChart, DefaultZIndexes, Legend, Scatter, usePlotArea, useXAxisScale, useYAxisScale, XAxis, YAxis, ZIndexLayer } from 'recharts';
import { formatNumber, formatSigned } from '../../lib/format.ts';
import { usePaintProbe } from '../../lib/use-paint-probe.ts';
import { AXIS_TICK, HoverArea, LEGEND_STYLE, legendWithHandDrawn, PAINT_PROBE, ScaledCurve } from '../common/hand-drawn-chart.tsx';
import { useApp } from '../../store/app-context.tsx';
import { curveAt, niceRange, niceTicks, type CurveRow, type MeasuredPoint } from './preview-data.ts';

export interface PreviewChartProps {
  rows: readonly CurveRow[];
  measured: readonly MeasuredPoint[];
  /** Losses measured at analysis time (default settings, gradients' split); none without them. */
  anchors?: readonly MeasuredPoint[];
  /** The α up to which the model agrees with the anchors; null: no anchors, nothing shaded. */
  trustedUpTo?: number | null;
  width: number;
  height: number;
}

const MARGIN = { top: 8, right: 4, bottom: 8, left: 4 };
const X_LABEL = { value: 'α', position: 'insideBottomRight', offset: -4, fill: 'var(--muted)' } as const;
const twoDigits = (v: number) => formatNumber(v, 2);
const SERIES = [
  { key: 'reasoning', name: 'ΔL_R predicted', color: 'var(--series-1)', orientation: 'left', axisTitle: 'ΔL_R' },
  { key: 'agent', name: 'ΔL_A predicted', color: 'var(--series-2)', orientation: 'right', axisTitle: 'ΔL_A' },
] as const;
type SeriesKey = (typeof SERIES)[number]['key'];

const MEASURED = SERIES.flatMap((s) => [true, false].map((current) => ({
  key: s.key,
  color: s.color,
  current,
  name: `${s.key === 'reasoning' ? 'ΔL_R' : 'ΔL_A'} measured${current ? '' : ' (other settings)'}`,
})));

/** The curve: read by the paths, the marker and the read-out inside the chart. */
const CurveContext = createContext<readonly CurveRow[]>([]);

const NO_ANCHORS: readonly MeasuredPoint[] = [];

export const PreviewChart = memo(function PreviewChart({ rows, measured, anchors = NO_ANCHORS, trustedUpTo = null, width, height }: PreviewChartProps) {
  const probeRoot = usePaintProbe<HTMLDivElement>('preview');
  const xMax = rows.at(-1)?.alpha ?? 1;
  const reasoningAxis = useYRange(rows, measured, 'reasoning');
  const agentAxis = useYRange(rows, measured, 'agent');
  const chart = useMemo(
    () => (
      <ComposedChart width={width} height={height} margin={MARGIN}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
        <XAxis type="number" dataKey="alpha" domain={[0, xMax]} allowDataOverflow tick={AXIS_TICK} tickFormatter={twoDigits} label={X_LABEL} />
        {SERIES.map((s) => {
          const [min, max, step] = s.key === 'reasoning' ? reasoningAxis : agentAxis;
          return (
            <YAxis key={s.key} yAxisId={s.key} orientation={s.orientation} type="number" domain={[min, max]} ticks={niceTicks(min, max, step)} allowDataOverflow tick={{ ...AXIS_TICK, fill: s.color }} tickFormatter={twoDigits} width={60}
              label={{ value: s.axisTitle, angle: -90, position: s.orientation === 'left' ? 'insideLeft' : 'insideRight', fill: s.color, fontSize: 11, offset: 0 }} />
          );
        })}
        <Legend wrapperStyle={LEGEND_STYLE} content={legendContent} />
        {trustedUpTo !== null && <Extrapolation from={trustedUpTo} />}
        {SERIES.map((s) => (
          <ZeroLine key={s.key} series={s.key} color={s.color} />
        ))}
        {SERIES.map((s) => (
          <CurvePath key={s.key} series={s.key} color={s.color} />
        ))}
        {MEASURED.map((m) => {
          // Filled: measured at the curve's settings; hollow: at other settings (another q, τ, override…).
          const points = measured.filter((p) => p.current === m.current);
          return points.length > 0 && (
            <Scatter key={`${m.key}-${m.current}`} yAxisId={m.key} data={points} dataKey={m.key} name={m.name} fill={m.current ? m.color : 'none'} stroke={m.color} shape="diamond" isAnimationActive={false} />
          );
        })}
        {SERIES.map((s) => anchors.length > 0 && (
          <Scatter key={`anchor-${s.key}`} yAxisId={s.key} data={anchors} dataKey={s.key} name={`${s.key === 'reasoning' ? 'ΔL_R' : 'ΔL_A'} measured at analysis`} fill={s.color} shape="cross" isAnimationActive={false} />
        ))}
        <AlphaMarker />
        <HoverReadout points={[...measured, ...anchors]} />
      </ComposedChart>
    ),
    [width, height, measured, anchors, trustedUpTo, xMax, reasoningAxis, agentAxis],
  );
  return (
    <div ref={probeRoot} data-testid="preview-chart">
      <CurveContext.Provider value={rows}>{chart}</CurveContext.Provider>
    </div>
  );
});

/** One loss' y range over its curve, its measured points and 0, rounded out: the same while the curve moves a little. */
function useYRange(rows: readonly CurveRow[], measured: readonly MeasuredPoint[], series: SeriesKey): readonly [number, number, number] {
  const last = useRef<readonly [number, number, number]>([-1, 1, 0.5]);
  return useMemo(() => {
    const next = niceRange([0, ...rows.map((r) => r[series]), ...measured.map((m) => m[series])]);
    if (next.some((v, i) => v !== last.current[i])) last.current = next;
    return last.current;
  }, [rows, measured, series]);
}

const legendContent = legendWithHandDrawn(SERIES.map((s) => ({ value: `${s.name} · ${s.orientation} axis`, type: 'line' as const, color: s.color, dataKey: s.key })));

/** Both losses' y scales: each series is drawn on its own axis. */
function useSeriesScales() {
  const reasoning = useYAxisScale('reasoning');
  const agent = useYAxisScale('agent');
  return { reasoning, agent };
}

function CurvePath({ series, color }: { series: SeriesKey; color: string }) {
  const rows = useContext(CurveContext);
  const group = useMemo(() => ({ className: 'preview-curve', 'data-series': series }), [series]);
  return <ScaledCurve rows={rows} x="alpha" y={series} yAxisId={series} type="linear" color={color} group={group} />;
}

/** The α range past `from`, where the model has no measurement that agrees with it. */
function Extrapolation({ from }: { from: number }) {
  const x = useXAxisScale();
  const area = usePlotArea();
  const px = x?.(from);
  if (area === undefined || px === undefined || !Number.isFinite(px) || px >= area.x + area.width) return null;
  const left = Math.max(area.x, px);
  return (
    <g className="preview-extrapolation" data-testid="preview-extrapolation" data-from={from}>
      <rect x={left} y={area.y} width={area.x + area.width - left} height={area.height} fill="var(--muted)" opacity={0.12} />
      <text x={area.x + area.width - 6} y={area.y + area.height - 6} textAnchor="end" fontSize={11} fill="var(--muted)">extrapolating</text>
    </g>
  );
}

/** One axis' y = 0 across the plot, in its series' colour (the two axes' zeros need not meet). */
function ZeroLine({ series, color }: { series: SeriesKey; color: string }) {
  const y = useYAxisScale(series);
  const area = usePlotArea();
  const py = y?.(0);
  if (area === undefined || py === undefined || !Number.isFinite(py) || py < area.y || py > area.y + area.height) return null;
  return <line x1={area.x} x2={area.x + area.width} y1={py} y2={py} stroke={color} strokeOpacity={0.6} strokeDasharray={series === 'agent' ? '2 3' : undefined} />;
}

/** A dashed line at `alpha` and a dot on each curve there. */
function AlphaDots({ alpha, at, dashed }: { alpha: number; at: { reasoning: number; agent: number }; dashed: boolean }) {
  const x = useXAxisScale();
  const scales = useSeriesScales();
  const area = usePlotArea();
  const px = x?.(alpha);
  if (area === undefined || px === undefined || !Number.isFinite(px)) return null;
  return (
    <>
      <line x1={px} x2={px} y1={area.y} y2={area.y + area.height} stroke={dashed ? 'var(--accent)' : 'var(--muted)'} strokeDasharray={dashed ? '4 3' : undefined} />
      {SERIES.map((s) => {
        const cy = scales[s.key]?.(at[s.key]);
        return cy !== undefined && Number.isFinite(cy) && <circle key={s.key} cx={px} cy={cy} r={dashed ? 5 : 3.5} fill={s.color} stroke="var(--panel)" />;
      })}
    </>
  );
}

/**
 * The current α. Subscribes to α itself, so a slider move re-renders this and nothing else of
 * the chart. Hidden while α is past the curve's end (the engine's next, wider curve brings it back).
 */
function AlphaMarker() {
  const rows = useContext(CurveContext);
  const alpha = useApp((s) => s.settings.current.alpha);
  const at = curveAt(rows, alpha);
  if (at === null) return null;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.scatter}>
      <g className="alpha-marker" data-testid="alpha-marker" data-alpha={alpha} {...PAINT_PROBE}>
        <AlphaDots alpha={alpha} at={at} dashed />
      </g>
    </ZIndexLayer>
  );
}

/** How near (in α, as a share of the axis) a measured point must be to the hovered α to be read out. */
const NEAR = 0.03;

/** Hovering the plot: a line at that α with both predicted values, and the measured points there with their settings (the chart's tooltip). */
function HoverReadout({ points }: { points: readonly MeasuredPoint[] }) {
  const rows = useContext(CurveContext);
  const area = usePlotArea();
  const [alpha, setAlpha] = useState<number | null>(null);
  if (area === undefined) return null;
  const at = alpha === null ? null : curveAt(rows, alpha);
  const xMax = rows.at(-1)?.alpha ?? 1;
  const right = alpha !== null && alpha > xMax / 2;
  const near = alpha === null ? [] : points.filter((p) => Math.abs(p.alpha - alpha) <= NEAR * xMax).slice(0, 3);
  const textX = right ? area.x + 8 : area.x + area.width - 8;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.activeDot}>
      {alpha !== null && at !== null && (
        <g className="preview-hover" pointerEvents="none">
          <AlphaDots alpha={alpha} at={at} dashed={false} />
          <text x={textX} y={area.y + 14} textAnchor={right ? 'start' : 'end'} fontSize={11} fill="var(--text)" stroke="var(--panel)" strokeWidth={3} paintOrder="stroke" data-testid="preview-hover-text">
            <tspan>α = {formatNumber(alpha)}</tspan>
            {SERIES.map((s) => (
              <tspan key={s.key} x={textX} dy={14} fill={s.color}>
                {s.name}: {formatNumber(at[s.key])}
              </tspan>
            ))}
            {near.flatMap((p, i) => [
              <tspan key={`${i}-values`} x={textX} dy={14} data-testid="preview-hover-measured">
                measured at α {formatNumber(p.alpha)}: ΔL_R {formatSigned(p.reasoning)}, ΔL_A {formatSigned(p.agent)}
              </tspan>,
              <tspan key={`${i}-settings`} x={textX} dy={13} fontSize={10} fill="var(--muted)">
                {p.settings}
              </tspan>,
            ])}
          </text>
        </g>
      )}
      <HoverArea area={area} onHover={setAlpha} />
    </ZIndexLayer>
  );
}
