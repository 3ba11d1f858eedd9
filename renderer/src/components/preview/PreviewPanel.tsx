/** The live preview: readout at the current α, the curve chart, and Verify for measured points. */
import { useMemo, useRef } from 'react';
import { formatSigned } from '../../lib/format.ts';
import type { Preview } from '../../protocol.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { Stat } from '../common/Stat.tsx';
import { useElementWidth } from '../common/use-element-width.ts';
import { MeasuredOn } from './MeasuredOn.tsx';
import { curveRows, measuredPoints, sameCurve, type CurveRow } from './preview-data.ts';
import { PreviewChart } from './PreviewChart.tsx';

const CRANE_ONLY = ['crane'] as const;

export function PreviewPanel() {
  const actions = useActions();
  const preview = useApp((s) => s.preview);
  const measured = useApp((s) => s.verify.measured);
  const verifying = useApp((s) => s.verify.byMethod.crane);
  const [ref, width] = useElementWidth<HTMLDivElement>(440);
  const result = preview.result;
  // An α move brings back the same curve (only the marker moves, inside the chart): keeping
  // its rows keeps the chart from re-rendering at all.
  const rows = useStableCurve(result);
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
      <MeasuredOn methods={CRANE_ONLY} />
      {result === null ? (
        preview.error === null && <p className="muted empty">The preview appears once the analysis has gate metrics.</p>
      ) : (
        <>
          <div className="stats">
            <Stat label="ΔL_R reasoning (lower is better)" value={formatSigned(result.deltaLossReasoning)} testId="preview-reasoning" />
            <Stat label="ΔL_A tool use (lower is better)" value={formatSigned(result.deltaLossAgent)} testId="preview-agent" />
            <Stat label="measured points" value={String(points.length)} />
          </div>
          <PreviewChart rows={rows} measured={points} width={Math.max(240, width - 24)} height={230} />
        </>
      )}
    </section>
  );
}

/** The curve's rows: the previous array as long as the points are the same. */
function useStableCurve(result: Preview | null): readonly CurveRow[] {
  const last = useRef<readonly CurveRow[]>([]);
  return useMemo(() => {
    const next = result === null ? [] : curveRows(result);
    if (!sameCurve(last.current, next)) last.current = next;
    return last.current;
  }, [result]);
}
