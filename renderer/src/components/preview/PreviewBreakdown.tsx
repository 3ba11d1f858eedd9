/**
 * What the preview's total is made of and how far to trust it: one row per edited tensor group
 * (first-order and curvature terms of ΔL_R and ΔL_A, summing to the totals above), whether the
 * curvature is current, stale (with the settings that made it so) or absent, and the losses
 * measured at analysis time next to the model, with the settings they were measured at.
 */
import { formatSigned } from '../../lib/format.ts';
import type { Preview } from '../../protocol.ts';

const GROUP_LABELS: Record<Preview['breakdown'][number]['group'], string> = {
  attention: 'attention',
  linear_attn: 'linear attention',
  ffn: 'FFN',
  expert: 'routed experts',
  shared_expert: 'shared expert',
  router: 'routers (SLERP, 1st order)',
  norm: 'layer norms',
  other: 'other layer tensors',
  final_norm: 'final norm',
  embed_think: 'embedding <think> rows',
  lm_head_think: 'lm_head <think> rows',
  lm_head_blend: 'lm_head blend',
};

export function PreviewBreakdown({ preview }: { preview: Preview }) {
  const { breakdown, curvature } = preview;
  const withCurvature = curvature.state !== 'absent';
  return (
    <div className="preview-breakdown" data-testid="preview-breakdown">
      <table>
        <thead>
          <tr>
            <th scope="col">tensor group</th>
            <th scope="col">ΔL_R 1st</th>
            {withCurvature && <th scope="col">ΔL_R 2nd</th>}
            <th scope="col">ΔL_A 1st</th>
            {withCurvature && <th scope="col">ΔL_A 2nd</th>}
          </tr>
        </thead>
        <tbody>
          {breakdown.map((term) => (
            <tr key={term.group}>
              <th scope="row">{GROUP_LABELS[term.group]}</th>
              <td>{formatSigned(term.firstOrder.reasoning)}</td>
              {withCurvature && <td className={curvature.state === 'stale' ? 'stale-term' : undefined}>{formatSigned(term.secondOrder.reasoning)}</td>}
              <td>{formatSigned(term.firstOrder.agent)}</td>
              {withCurvature && <td className={curvature.state === 'stale' ? 'stale-term' : undefined}>{formatSigned(term.secondOrder.agent)}</td>}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">total</th>
            <td colSpan={withCurvature ? 2 : 1}>{formatSigned(preview.deltaLossReasoning)}</td>
            <td colSpan={withCurvature ? 2 : 1}>{formatSigned(preview.deltaLossAgent)}</td>
          </tr>
        </tfoot>
      </table>
      <CurvatureNote curvature={curvature} />
      <RangeNote range={preview.range} />
    </div>
  );
}

function CurvatureNote({ curvature }: { curvature: Preview['curvature'] }) {
  if (curvature.state === 'absent') {
    return <p className="muted">First order over the layer tensors only: this analysis has no curvature stage yet (Analyze adds it).</p>;
  }
  if (curvature.state === 'current') return <p className="muted">With curvature: ½ Σ c_b c_b′ Δ_bᵀHΔ_b′ along the edit’s blocks, measured at analysis time.</p>;
  return (
    <p className="stale-mark" role="status" data-testid="curvature-stale">
      2nd-order terms are stale (measured along the analysis’ directions): {curvature.staleReasons.join('; ')}. The first-order terms are exact; Analyze at these settings to re-measure.
    </p>
  );
}

function RangeNote({ range }: { range: Preview['range'] }) {
  if (range === null) return null;
  return (
    <p className="muted" data-testid="preview-range">
      {range.trustedUpTo > 0 ? `Agrees with measurement up to α ${range.trustedUpTo}; shaded beyond: extrapolating.` : 'No measured point agrees with the model: the whole curve is extrapolation.'}{' '}
      Measured at analysis time on the {range.split} split, default settings (agreement: ΔL_R within {range.tolerance.relative * 100}%, ΔL_A of the same sign):{' '}
      {range.anchors.map((a) => `α ${a.alpha}: ΔL_R ${formatSigned(a.measured.reasoning)} (model ${formatSigned(a.predicted.reasoning)}), ΔL_A ${formatSigned(a.measured.agent)} (model ${formatSigned(a.predicted.agent)}) ${a.agrees ? '✓' : '✗'}`).join(' · ')}
    </p>
  );
}
