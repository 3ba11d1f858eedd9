/**
 * σ_i/σ₁ against the direction index on log–log axes, with the mask weights w_i (right axis)
 * over it and a line at τ, where w = 0.5.
 *
 * Kept cheap while τ or k moves. recharts 3 keeps its series, axes and legend in a store, and any
 * change there (a series' new data, a chart re-render re-reporting its props, a ReferenceLine,
 * which re-registers on every render) re-runs its selectors, tick layout and text measurement:
 * ~40 ms a move here. So recharts draws what does not move — the axes, the grid and the σ
 * series, in a chart element that stays the same while only τ or k changes — and the mask curve
 * and the τ line are drawn by `MaskCurve` and `TauLine` with the axes' scales, re-rendered alone
 * through a context. The legend adds the hand-drawn entries itself and says what w means (1 =
 * the direction is removed, 0 = kept); hovering the plot reads out the direction under the
 * pointer (σᵢ/σ₁ and w there), drawn by hand like the curves. A looped model's passes are
 * dashed σ lines of their own (each pass's Gram alone; the pooled one is what GSP uses).
 * The mask curve and the τ line carry `data-paint-probe`: the slider-to-paint sample is the
 * first frame painted after one of them changed in the DOM.
 */
import { createContext, memo, useContext, useMemo, useRef, useState } from 'react';
import { CartesianGrid, ComposedChart, DefaultZIndexes, Legend, Line, usePlotArea, useXAxisScale, useYAxisScale, XAxis, YAxis, ZIndexLayer } from 'recharts';
import { formatNumber } from '../../lib/format.ts';
import { usePaintProbe } from '../../lib/use-paint-probe.ts';
import { AXIS_TICK, HoverArea, LEGEND_STYLE, legendWithHandDrawn, PAINT_PROBE, ScaledCurve } from '../common/hand-drawn-chart.tsx';
import type { PassSpectrumSeries } from './pass-spectra.ts';
import type { SpectrumRow } from './spectrum-data.ts';

export interface SpectrumChartProps {
  rows: readonly SpectrumRow[];
  tau: number;
  width: number;
  height: number;
  /** A looped model's per-pass spectra, drawn dashed over the pooled one (pass-spectra.ts). */
  passes?: readonly PassSpectrumSeries[];
}

const NO_PASSES: readonly PassSpectrumSeries[] = [];
const PASS_DASH = ['6 3', '2 2', '8 2 2 2'];

const MARGIN = { top: 8, right: 8, bottom: 4, left: 8 };
const X_LABEL = { value: 'direction i (by σ, log scale)', position: 'insideBottom', offset: 0, fill: 'var(--muted)', fontSize: 11 } as const;
const SIGMA_LABEL = { value: 'σᵢ/σ₁ (log)', angle: -90, position: 'insideLeft', offset: 2, fill: 'var(--series-1)', fontSize: 11 } as const;
const MASK_LABEL = { value: 'mask w', angle: 90, position: 'insideRight', offset: 2, fill: 'var(--series-2)', fontSize: 11 } as const;
const SIGMA_DOMAIN = [1e-5, 1];
const MASK_DOMAIN = [0, 1];
const SIGMA_NAME = 'σᵢ/σ₁ (format spectrum)';
const MASK_NAME = 'mask w(σᵢ): 1 = removed, 0 = kept';
const SIGMA_COLOR = 'var(--series-1)';
const MASK_COLOR = 'var(--series-2)';
const exponent = (v: number) => v.toExponential(0);

/** What a τ or k move changes: read by the mask curve, the τ line and the tooltip inside the chart. */
const MaskContext = createContext<{ rows: readonly SpectrumRow[]; tau: number }>({ rows: [], tau: 0.5 });

export const SpectrumChart = memo(function SpectrumChart({ rows, tau, width, height, passes = NO_PASSES }: SpectrumChartProps) {
  const probeRoot = usePaintProbe<HTMLDivElement>('spectrum');
  const sigma = useSigmaRows(rows);
  const last = sigma.at(-1)?.index ?? 1;
  const mask = useMemo(() => ({ rows, tau }), [rows, tau]);
  const chart = useMemo(
    () => (
      <ComposedChart width={width} height={height} margin={MARGIN}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
        <XAxis dataKey="index" type="number" scale="log" domain={[1, Math.max(2, last)]} allowDataOverflow tick={AXIS_TICK} label={X_LABEL} height={40} />
        <YAxis yAxisId="sigma" type="number" scale="log" domain={SIGMA_DOMAIN} allowDataOverflow tickFormatter={exponent} tick={AXIS_TICK} width={56} label={SIGMA_LABEL} />
        <YAxis yAxisId="mask" orientation="right" type="number" domain={MASK_DOMAIN} tick={AXIS_TICK} width={44} label={MASK_LABEL} />
        <Legend wrapperStyle={LEGEND_STYLE} content={legendContent} />
        <Line data={sigma} yAxisId="sigma" dataKey="ratio" name={SIGMA_NAME} stroke={SIGMA_COLOR} dot={false} activeDot={false} strokeWidth={2} isAnimationActive={false} />
        {passes.map((p) => (
          <Line key={p.pass} data={p.rows} yAxisId="sigma" dataKey="ratio" name={`pass ${p.pass + 1} alone`} stroke={SIGMA_COLOR} strokeDasharray={PASS_DASH[p.pass % PASS_DASH.length]} strokeOpacity={0.7} dot={false} activeDot={false} isAnimationActive={false} />
        ))}
        {/* recharts draws an axis only for its series: an invisible one keeps the mask axis (and its scale). */}
        <Line data={sigma} yAxisId="mask" dataKey="weight" stroke="none" dot={false} activeDot={false} legendType="none" tooltipType="none" isAnimationActive={false} />
        <MaskCurve />
        <TauLine />
        <HoverReadout />
      </ComposedChart>
    ),
    [width, height, last, sigma, passes],
  );
  return (
    <div ref={probeRoot} data-testid="spectrum-chart">
      <MaskContext.Provider value={mask}>{chart}</MaskContext.Provider>
    </div>
  );
});

/** The σ series of `rows`: the same array while σ is unchanged (a τ or k move changes only w). */
function useSigmaRows(rows: readonly SpectrumRow[]): readonly SpectrumRow[] {
  const last = useRef<readonly SpectrumRow[]>([]);
  return useMemo(() => {
    const before = last.current;
    const same = before.length === rows.length && rows.every((r, i) => before[i]?.index === r.index && before[i]?.ratio === r.ratio);
    if (!same) last.current = rows;
    return last.current;
  }, [rows]);
}

const MASK_CURVE_GROUP = { className: 'mask-curve', 'data-testid': 'mask-curve' };

/** w_i at each direction on the right axis, a monotone curve as a recharts Line would draw it. */
function MaskCurve() {
  const { rows } = useContext(MaskContext);
  return <ScaledCurve rows={rows} x="index" y="weight" yAxisId="mask" type="monotone" color={MASK_COLOR} group={MASK_CURVE_GROUP} />;
}

/** The dashed line at σ/σ₁ = τ (where w = 0.5), labelled. */
function TauLine() {
  const { tau } = useContext(MaskContext);
  const y = useYAxisScale('sigma');
  const area = usePlotArea();
  const py = y?.(tau);
  if (area === undefined || py === undefined || !Number.isFinite(py) || py < area.y || py > area.y + area.height) return null;
  const right = area.x + area.width;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.line}>
      <g className="tau-line" data-testid="tau-line" data-tau={tau} {...PAINT_PROBE}>
        <line x1={area.x} x2={right} y1={py} y2={py} stroke="var(--accent)" strokeDasharray="4 3" />
        <text x={right - 4} y={py - 5} textAnchor="end" fill="var(--accent)" fontSize={11}>
          τ = {tau}
        </text>
      </g>
    </ZIndexLayer>
  );
}

const legendContent = legendWithHandDrawn([], [
  { value: MASK_NAME, type: 'line', color: MASK_COLOR, dataKey: 'weight' },
  { value: 'τ: w = 0.5', type: 'plainline', color: 'var(--accent)', dataKey: 'tau', payload: { strokeDasharray: '4 3' } },
]);

/** The direction nearest the pointer on the log x axis (1-based), within the spectrum. */
export function directionAt(value: number, count: number): number | null {
  if (!Number.isFinite(value) || count < 1) return null;
  return Math.min(count, Math.max(1, Math.round(value)));
}

/** Hovering the plot: a line at the direction under the pointer, dots on both curves, and their values. */
function HoverReadout() {
  const { rows } = useContext(MaskContext);
  const area = usePlotArea();
  const x = useXAxisScale();
  const sigmaY = useYAxisScale('sigma');
  const maskY = useYAxisScale('mask');
  const [index, setIndex] = useState<number | null>(null);
  if (area === undefined || x === undefined || sigmaY === undefined || maskY === undefined) return null;
  const row = index === null ? undefined : rows[index - 1];
  const px = row === undefined ? undefined : x(row.index);
  // The read-out sits low in the plot (σ starts at the top), on the side away from the pointer.
  const right = px !== undefined && px > area.x + area.width / 2;
  const tx = right ? area.x + 8 : area.x + area.width - 8;
  const ty = area.y + area.height - 42;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.activeDot}>
      {row !== undefined && px !== undefined && (
        <g className="spectrum-hover" data-testid="spectrum-hover" pointerEvents="none">
          <line x1={px} x2={px} y1={area.y} y2={area.y + area.height} stroke="var(--muted)" />
          <circle cx={px} cy={sigmaY(row.ratio)} r={3.5} fill={SIGMA_COLOR} stroke="var(--panel)" />
          <circle cx={px} cy={maskY(row.weight)} r={3.5} fill={MASK_COLOR} stroke="var(--panel)" />
          <rect x={right ? tx - 4 : tx - 156} y={ty - 13} width={160} height={46} rx={3} fill="var(--panel)" opacity={0.9} />
          <text x={tx} y={ty} textAnchor={right ? 'start' : 'end'} fontSize={11} fill="var(--text)" stroke="var(--panel)" strokeWidth={3} paintOrder="stroke">
            <tspan>direction {row.index}</tspan>
            <tspan x={tx} dy={14} fill={SIGMA_COLOR}>σᵢ/σ₁ = {formatNumber(row.ratio)}</tspan>
            <tspan x={tx} dy={14} fill={MASK_COLOR}>w = {formatNumber(row.weight)} ({w(row.weight)})</tspan>
          </text>
        </g>
      )}
      <HoverArea area={area} onHover={(value) => setIndex(value === null ? null : directionAt(value, rows.length))} />
    </ZIndexLayer>
  );
}

/** What a mask weight does to its direction, in words. */
const w = (weight: number) => (weight >= 0.99 ? 'removed' : weight <= 0.01 ? 'kept' : `${Math.round(weight * 100)}% removed`);
