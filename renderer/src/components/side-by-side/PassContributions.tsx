/**
 * A looped model's block under the pane's method, pass by pass: each tensor's first-order ΔL_R and
 * ΔL_A through pass 1, 2, … (getBlockPasses; they add up to the edit's whole first-order ΔL), a
 * bar per value on one scale, the rows whose passes pull a loss in opposite directions marked, and
 * the per-pass conflict share of the block's raw δ (getPassMetrics, as the heatmap's pass switch
 * shows it). Nothing for a model without a loop.
 */
import { formatPercent, formatSigned } from '../../lib/format.ts';
import { useApp } from '../../store/app-context.tsx';
import type { PassMetrics } from '../../store/passes-slice.ts';
import type { PaneIndex } from '../../store/side-by-side-slice.ts';
import type { Block } from '../../protocol.ts';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { largestLoss, passRows, type PassRow } from './pass-contributions.ts';

const LOSSES = [
  { key: 'reasoning', label: 'ΔL_R' },
  { key: 'agent', label: 'ΔL_A' },
] as const;

export function PassContributions({ index }: { index: PaneIndex }) {
  const view = useApp((s) => s.sideBySide.passes[index]);
  const metrics = useApp((s) => s.passes.metrics.result);
  if (view.error !== null) return <EngineNotice error={view.error} what="Per-pass contributions" />;
  if (view.result === null) return null;
  const rows = passRows(view.result);
  const scale = largestLoss(rows);
  const passes = Array.from({ length: view.result.passes }, (_, pass) => pass);
  return (
    <div className="pass-contributions" data-testid="pass-contributions">
      <div className="small">
        <strong>Per pass</strong> · first-order ΔL of this edit through each pass (negative: the loss goes down); the passes add up to the
        edit’s whole ΔL
      </div>
      <table className="table" aria-label={`Pane ${index === 0 ? 'A' : 'B'} per-pass ΔL`}>
        <thead>
          <tr>
            <th>Tensor</th>
            {LOSSES.flatMap((loss) => passes.map((pass) => <th key={`${loss.key}${pass}`}>{loss.label} pass {pass + 1}</th>))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label} data-testid="pass-row">
              <th scope="row" className="small">
                <span className="mono">{row.label}</span>
                {disagreement(row)}
              </th>
              {LOSSES.flatMap((loss) =>
                row.passes.map((part, pass) => (
                  <td key={`${loss.key}${pass}`} className="mono small" title={loss.key === 'reasoning' ? `${formatPercent(row.reasoningShare[pass] ?? 0)} of the row’s |ΔL_R|` : undefined}>
                    {formatSigned(part[loss.key])}
                    <DivergingBar value={part[loss.key]} scale={scale} />
                  </td>
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ConflictLine metrics={metrics} block={view.result.block} />
    </div>
  );
}

function disagreement(row: PassRow) {
  const which = LOSSES.filter((loss) => row.disagrees[loss.key]).map((loss) => loss.label);
  if (which.length === 0) return null;
  return <div style={{ color: 'var(--warn)', fontWeight: 'normal' }} title="One pass lowers this loss, another raises it">passes disagree on {which.join(', ')}</div>;
}

/** From the centre: left (lowers the loss) or right (raises it), |value| on the table's common scale. */
function DivergingBar({ value, scale }: { value: number; scale: number }) {
  const half = 30;
  const length = (Math.abs(value) / scale) * half;
  return (
    <svg width={2 * half} height={8} aria-hidden="true" style={{ display: 'block' }}>
      <line x1={half} x2={half} y1={0} y2={8} stroke="var(--grid)" />
      <rect x={value < 0 ? half - length : half} y={1} width={length} height={6} fill={value < 0 ? 'var(--ok)' : 'var(--bad)'} />
    </svg>
  );
}

/** The block's conflict share of raw δ in each pass (the heatmap column named as the pane's block). */
function ConflictLine({ metrics, block }: { metrics: PassMetrics | null; block: Block }) {
  const blocks = (metrics?.blocks ?? []).filter((b) => b.layer === block.layer && b.column === block.group).sort((x, y) => x.pass - y.pass);
  if (blocks.length === 0) return null;
  return (
    <div className="small muted" data-testid="pass-conflict">
      Conflict share of δ (the gate’s raw update): {blocks.map((b) => `pass ${b.pass + 1} ${formatPercent(b.conflictShare)}`).join(' · ')}
    </div>
  );
}
