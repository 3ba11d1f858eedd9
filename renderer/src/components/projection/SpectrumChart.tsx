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
 * through a context. The legend and the tooltip add the mask entry themselves.
 * The mask curve and the τ line carry `data-paint-probe`: the slider-to-paint sample is the
 * first frame painted after one of them changed in the DOM.
 */
import { createContext, memo, useContext, useMemo, useRef } from 'react';
import {
  CartesianGrid,
  ComposedChart,
  Curve,
  DefaultTooltipContent,
  DefaultZIndexes,
  Legend,
  Line,
  Tooltip,
  usePlotArea,
  useXAxisScale,
  useYAxisScale,
  XAxis,
  YAxis,
  ZIndexLayer,
  type TooltipContentProps,
} from 'recharts';
import { formatNumber } from '../../lib/format.ts';
import { usePaintProbe } from '../../lib/use-paint-probe.ts';
import { AXIS_TICK, LEGEND_STYLE, legendWithHandDrawn, PAINT_PROBE } from '../common/hand-drawn-chart.tsx';
import type { SpectrumRow } from './spectrum-data.ts';

export interface SpectrumChartProps {
  rows: readonly SpectrumRow[];
  tau: number;
  width: number;
  height: number;
}

const MARGIN = { top: 8, right: 8, bottom: 8, left: 4 };
const X_LABEL = { value: 'direction i', position: 'insideBottomRight', offset: -4, fill: 'var(--muted)', fontSize: 11 } as const;
const SIGMA_DOMAIN = [1e-5, 1];
const MASK_DOMAIN = [0, 1];
const MASK_NAME = 'mask w(σᵢ)';
const MASK_COLOR = 'var(--series-2)';
const exponent = (v: number) => v.toExponential(0);
const tooltipValue = (value: unknown, name: unknown): [string, string] => [formatNumber(Number(value)), String(name)];
const tooltipLabel = (label: unknown) => `direction ${String(label)}`;
const TOOLTIP_STYLE = { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--text)' };

/** What a τ or k move changes: read by the mask curve, the τ line and the tooltip inside the chart. */
const MaskContext = createContext<{ rows: readonly SpectrumRow[]; tau: number }>({ rows: [], tau: 0.5 });

export const SpectrumChart = memo(function SpectrumChart({ rows, tau, width, height }: SpectrumChartProps) {
  const probeRoot = usePaintProbe<HTMLDivElement>('spectrum');
  const sigma = useSigmaRows(rows);
  const last = sigma.at(-1)?.index ?? 1;
  const mask = useMemo(() => ({ rows, tau }), [rows, tau]);
  const chart = useMemo(
    () => (
      <ComposedChart width={width} height={height} margin={MARGIN}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
        <XAxis dataKey="index" type="number" scale="log" domain={[1, Math.max(2, last)]} allowDataOverflow tick={AXIS_TICK} label={X_LABEL} />
        <YAxis yAxisId="sigma" type="number" scale="log" domain={SIGMA_DOMAIN} allowDataOverflow tickFormatter={exponent} tick={AXIS_TICK} width={48} />
        <YAxis yAxisId="mask" orientation="right" type="number" domain={MASK_DOMAIN} tick={AXIS_TICK} width={32} />
        <Tooltip formatter={tooltipValue} labelFormatter={tooltipLabel} contentStyle={TOOLTIP_STYLE} content={tooltipContent} />
        <Legend wrapperStyle={LEGEND_STYLE} content={legendContent} />
        <Line data={sigma} yAxisId="sigma" dataKey="ratio" name="σᵢ/σ₁" stroke="var(--series-1)" dot={false} strokeWidth={2} isAnimationActive={false} />
        {/* recharts draws an axis only for its series: an invisible one keeps the mask axis (and its scale). */}
        <Line data={sigma} yAxisId="mask" dataKey="weight" stroke="none" dot={false} activeDot={false} legendType="none" tooltipType="none" isAnimationActive={false} />
        <MaskCurve />
        <TauLine />
      </ComposedChart>
    ),
    [width, height, last, sigma],
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

/** w_i at each direction on the right axis, a monotone curve as a recharts Line would draw it. */
function MaskCurve() {
  const { rows } = useContext(MaskContext);
  const x = useXAxisScale();
  const y = useYAxisScale('mask');
  const points = useMemo(() => {
    if (x === undefined || y === undefined) return [];
    return rows.map((r) => ({ x: x(r.index) ?? null, y: y(r.weight) ?? null }));
  }, [rows, x, y]);
  if (points.length === 0) return null;
  return (
    <ZIndexLayer zIndex={DefaultZIndexes.line}>
      <g className="mask-curve" data-testid="mask-curve" {...PAINT_PROBE}>
        <Curve type="monotone" points={points} stroke={MASK_COLOR} strokeWidth={2} fill="none" />
      </g>
    </ZIndexLayer>
  );
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

const legendContent = legendWithHandDrawn([], [{ value: MASK_NAME, type: 'line', color: MASK_COLOR, dataKey: 'weight' }]);

function tooltipContent(props: TooltipContentProps) {
  return <MaskTooltip {...props} />;
}

/** The σ entry recharts found at the hovered direction, and the mask weight there. */
function MaskTooltip(props: TooltipContentProps) {
  const { rows } = useContext(MaskContext);
  const row = rows[Number(props.label) - 1];
  const payload = row === undefined ? props.payload : [...props.payload, { name: MASK_NAME, value: row.weight, color: MASK_COLOR, dataKey: 'weight', graphicalItemId: 'mask' }];
  return <DefaultTooltipContent {...props} payload={payload} />;
}
