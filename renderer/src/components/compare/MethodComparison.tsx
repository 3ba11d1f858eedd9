/**
 * CRANE against the baselines on the calibration losses Verify measures (on the evaluation set it
 * names), with CRANE's prediction and each method's parameters; the best measured ΔL_R and ΔL_A
 * among the results at the settings on screen are marked.
 */
import { useMemo } from 'react';
import { METHOD_LABELS, METHOD_NAMES, methodUnavailable } from '../../lib/merge-methods.ts';
import { formatSigned } from '../../lib/format.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { previewIsCurrent } from '../../store/measured-results.ts';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { MeasuredOn } from '../preview/MeasuredOn.tsx';
import { bestMethods } from './best-results.ts';
import { MethodParameterFields } from './MethodParameterFields.tsx';
import { PublishedResults } from './PublishedResults.tsx';
import { VerifyCell } from './VerifyCell.tsx';

export function MethodComparison() {
  const actions = useActions();
  const jobs = useApp((s) => s.verify.jobs);
  // The prediction is shown only when it was computed for the settings on screen.
  const preview = useApp((s) => (previewIsCurrent(s) ? s.preview.result : null));
  const anyRunning = Object.values(jobs).some((job) => job?.status === 'running');
  // RAIN reads a Base checkpoint, opened with the pair (Pair view).
  const hasBase = useApp((s) => Boolean(s.project.state.result?.project.base));
  const settings = useApp((s) => s.settings);
  const methodParameters = useApp((s) => s.methodParameters);
  const verify = useApp((s) => s.verify);
  const best = useMemo(() => bestMethods({ settings, methodParameters, verify }), [settings, methodParameters, verify]);
  return (
    <div className="stack">
      <section className="panel" aria-labelledby="compare-title">
        <header className="panel-header">
          <h2 id="compare-title">Method comparison</h2>
          {anyRunning ? (
            <button type="button" onClick={() => actions.verifyJobs.cancel()}>
              Cancel Verify
            </button>
          ) : (
            <button type="button" onClick={() => void actions.verifyJobs.verifyAll()}>
              Verify all
            </button>
          )}
        </header>
        <p className="small muted">
          ΔL = edited − θ_I (lower is better). The first-order prediction exists for CRANE only; the baselines are measured. A result measured at other settings than
          the ones set now is marked “from other settings”; among the others, the lowest ΔL_R and ΔL_A are marked best.
        </p>
        <MeasuredOn methods={METHOD_NAMES} />
        <table className="table compare-table">
          <thead>
            <tr>
              <th scope="col">Method</th>
              <th scope="col">Parameters</th>
              <th scope="col">ΔL_R predicted</th>
              <th scope="col">ΔL_A predicted</th>
              <th scope="col">Measured ΔL_R / ΔL_A</th>
            </tr>
          </thead>
          <tbody>
            {METHOD_NAMES.map((method) => (
              <tr key={method} className={[methodUnavailable(method, hasBase) === null ? '' : 'unavailable', best.reasoning === method ? 'best-row' : ''].join(' ').trim() || undefined}>
                <th scope="row">{METHOD_LABELS[method]}</th>
                <td className="small">
                  <MethodParameterFields method={method} label={METHOD_LABELS[method]} />
                </td>
                <td>{method === 'crane' && preview ? formatSigned(preview.deltaLossReasoning) : '—'}</td>
                <td>{method === 'crane' && preview ? formatSigned(preview.deltaLossAgent) : '—'}</td>
                <td>
                  <VerifyCell method={method} label={METHOD_LABELS[method]} busy={anyRunning} unavailable={methodUnavailable(method, hasBase)} best={{ reasoning: best.reasoning === method, agent: best.agent === method }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {METHOD_NAMES.map((method) => (
          <EngineNotice key={method} error={jobs[method]?.error ?? null} what={`Verify ${METHOD_LABELS[method]}`} />
        ))}
      </section>
      <PublishedResults />
    </div>
  );
}
