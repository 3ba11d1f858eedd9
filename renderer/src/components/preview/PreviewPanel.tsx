/** The live preview: readout at the current α, the curve chart, and Verify for measured points. */
import { useDeferredValue, useMemo } from 'react';
import { formatSigned } from '../../lib/format.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { Stat } from '../common/Stat.tsx';
import { useElementWidth } from '../common/use-element-width.ts';
import { curveRows, measuredPoints } from './preview-data.ts';
import { PreviewChart } from './PreviewChart.tsx';

export function PreviewPanel() {
  const actions = useActions();
  const preview = useApp((s) => s.preview);
  const alpha = useApp((s) => s.settings.current.alpha);
  const measured = useApp((s) => s.verify.measured);
  const verifying = useApp((s) => s.verify.byMethod.crane);
  const [ref, width] = useElementWidth<HTMLDivElement>(440);
  const result = preview.result;
  // The chart renders as a transition: slider input and the canvas heatmap never wait for it.
  const deferred = useDeferredValue(result);
  const deferredAlpha = useDeferredValue(alpha);
  const rows = useMemo(() => (deferred === null ? [] : curveRows(deferred)), [deferred]);
  const current = useMemo(() => (deferred === null ? null : currentOf(deferred)), [deferred]);
  const points = useMemo(() => measuredPoints(measured), [measured]);
  const running = verifying?.status === 'loading';

  return (
    <section className="panel preview" aria-labelledby="preview-title" ref={ref}>
      <header className="panel-header">
        <h2 id="preview-title">Live preview (first order)</h2>
        <button type="button" onClick={() => void actions.verify('crane')} disabled={running || result === null}>
          {running ? `Verifying… ${Math.round((verifying?.fraction ?? 0) * 100)}%` : 'Verify'}
        </button>
      </header>
      <EngineNotice error={preview.error} what="Preview" />
      <EngineNotice error={verifying?.error ?? null} what="Verify" />
      {result === null ? (
        preview.error === null && <p className="muted empty">The preview appears once the analysis has gate metrics.</p>
      ) : (
        <>
          <div className="stats">
            <Stat label="ΔL_R reasoning (lower is better)" value={formatSigned(result.deltaLossReasoning)} testId="preview-reasoning" />
            <Stat label="ΔL_A tool use (lower is better)" value={formatSigned(result.deltaLossAgent)} testId="preview-agent" />
            <Stat label="measured points" value={String(points.length)} />
          </div>
          <PreviewChart
            rows={rows}
            measured={points}
            alpha={deferredAlpha}
            current={current ?? currentOf(result)}
            width={Math.max(240, width - 24)}
            height={230}
          />
        </>
      )}
    </section>
  );
}

const currentOf = (p: { deltaLossReasoning: number; deltaLossAgent: number }) => ({ reasoning: p.deltaLossReasoning, agent: p.deltaLossAgent });
