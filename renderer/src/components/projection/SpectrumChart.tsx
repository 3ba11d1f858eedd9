/**
 * σ_i/σ₁ against the direction index on log–log axes, with the mask weights w_i (right axis)
 * over it and a line at τ, where w = 0.5.
 */
import { memo, useLayoutEffect } from 'react';
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from '../../lib/format.ts';
import { markPainted } from '../../lib/latency.ts';
import type { SpectrumRow } from './spectrum-data.ts';

export interface SpectrumChartProps {
  rows: SpectrumRow[];
  tau: number;
  width: number;
  height: number;
}

export const SpectrumChart = memo(function SpectrumChart({ rows, tau, width, height }: SpectrumChartProps) {
  useLayoutEffect(() => markPainted('spectrum'), [rows]);
  const last = rows.at(-1)?.index ?? 1;
  return (
    <ComposedChart width={width} height={height} data={rows} margin={{ top: 8, right: 8, bottom: 8, left: 4 }}>
      <CartesianGrid stroke="var(--grid)" strokeDasharray="3 3" />
      <XAxis dataKey="index" type="number" scale="log" domain={[1, Math.max(2, last)]} allowDataOverflow tick={{ fill: 'var(--muted)', fontSize: 11 }} label={{ value: 'direction i', position: 'insideBottomRight', offset: -4, fill: 'var(--muted)', fontSize: 11 }} />
      <YAxis yAxisId="sigma" type="number" scale="log" domain={[1e-5, 1]} allowDataOverflow tickFormatter={(v: number) => v.toExponential(0)} tick={{ fill: 'var(--muted)', fontSize: 11 }} width={48} />
      <YAxis yAxisId="mask" orientation="right" type="number" domain={[0, 1]} tick={{ fill: 'var(--muted)', fontSize: 11 }} width={32} />
      <Tooltip
        formatter={(value, name) => [formatNumber(Number(value)), String(name)]}
        labelFormatter={(label) => `direction ${String(label)}`}
        contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--text)' }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      <ReferenceLine yAxisId="sigma" y={tau} stroke="var(--accent)" strokeDasharray="4 3" label={{ value: `τ = ${tau}`, fill: 'var(--accent)', fontSize: 11, position: 'insideTopRight' }} />
      <Line yAxisId="sigma" dataKey="ratio" name="σᵢ/σ₁" stroke="var(--series-1)" dot={false} strokeWidth={2} isAnimationActive={false} />
      <Line yAxisId="mask" dataKey="weight" name="mask w(σᵢ)" stroke="var(--series-2)" dot={false} strokeWidth={2} type="monotone" isAnimationActive={false} />
    </ComposedChart>
  );
});
