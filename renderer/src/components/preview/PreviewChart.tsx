/** Predicted ΔL_R and ΔL_A against α, a marker at the current α, and measured points from Verify. */
import { memo, useLayoutEffect } from 'react';
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceDot, ReferenceLine, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from '../../lib/format.ts';
import { markPainted } from '../../lib/latency.ts';
import type { CurveRow, MeasuredPoint } from './preview-data.ts';

export interface PreviewChartProps {
  rows: CurveRow[];
  measured: MeasuredPoint[];
  alpha: number;
  current: { reasoning: number; agent: number };
  width: number;
  height: number;
}

export const PreviewChart = memo(function PreviewChart({ rows, measured, alpha, current, width, height }: PreviewChartProps) {
  useLayoutEffect(() => markPainted('preview'), [rows]);
  const tick = { fill: 'var(--muted)', fontSize: 11 };
  return (
    <ComposedChart width={width} height={height} data={rows} margin={{ top: 8, right: 12, bottom: 8, left: 4 }}>
      <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
      <XAxis dataKey="alpha" type="number" domain={[0, 'dataMax']} tick={tick} tickFormatter={(v: number) => formatNumber(v, 2)} label={{ value: 'α', position: 'insideBottomRight', offset: -4, fill: 'var(--muted)' }} />
      <YAxis type="number" tick={tick} tickFormatter={(v: number) => formatNumber(v, 2)} width={52} />
      <Tooltip
        formatter={(value, name) => [formatNumber(Number(value)), String(name)]}
        labelFormatter={(label) => `α = ${formatNumber(Number(label))}`}
        contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--text)' }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      <ReferenceLine y={0} stroke="var(--muted)" />
      <ReferenceLine x={alpha} stroke="var(--accent)" strokeDasharray="4 3" />
      <Line dataKey="reasoning" name="ΔL_R predicted" stroke="var(--series-1)" dot={false} strokeWidth={2} isAnimationActive={false} />
      <Line dataKey="agent" name="ΔL_A predicted" stroke="var(--series-2)" dot={false} strokeWidth={2} isAnimationActive={false} />
      <ReferenceDot x={alpha} y={current.reasoning} r={5} fill="var(--series-1)" stroke="var(--panel)" />
      <ReferenceDot x={alpha} y={current.agent} r={5} fill="var(--series-2)" stroke="var(--panel)" />
      {measured.length > 0 && <Scatter data={measured} dataKey="reasoning" name="ΔL_R measured" fill="var(--series-1)" shape="diamond" isAnimationActive={false} />}
      {measured.length > 0 && <Scatter data={measured} dataKey="agent" name="ΔL_A measured" fill="var(--series-2)" shape="diamond" isAnimationActive={false} />}
    </ComposedChart>
  );
});
