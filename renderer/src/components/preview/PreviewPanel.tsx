/**
 * The live preview: readout at the current α, the curve chart, Verify for measured points, and
 * the project's run history (every Verify's settings, prediction, measurement and time).
 * A preview left over from other settings (its request failed, or none is on its way) is
 * greyed and says so; measured points at other settings are hollow and counted apart.
 */
import { useMemo, useRef } from 'react';
import { formatSigned } from '../../lib/format.ts';
import type { Preview } from '../../protocol.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { previewIsStale } from '../../store/measured-results.ts';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { Stat } from '../common/Stat.tsx';
import { useElementWidth } from '../common/use-element-width.ts';
import { MeasuredOn } from './MeasuredOn.tsx';
import { PreviewBreakdown } from './PreviewBreakdown.tsx';
import { anchorPoints, curveRows, measuredPoints, sameCurve, type CurveRow, type MeasuredPoint } from './preview-data.ts';
import { PreviewChart } from './PreviewChart.tsx';
import { RunHistory } from './RunHistory.tsx';

const CRANE_ONLY = ['crane'] as const;

export function PreviewPanel() {
  const actions = useActions();
  const preview = useApp((s) => s.preview);
  const measured = useApp((s) => s.verify.measured);
  const settings = useApp((s) => s.settings.current);
  const stale = useApp(previewIsStale);
  const verifying = useApp((s) => s.verify.jobs.crane);
  const [ref, width] = useElementWidth<HTMLDivElement>(440);
  const result = preview.result;
  // An α move brings back the same curve (only the marker moves, inside the chart): keeping
  // its rows keeps the chart from re-rendering at all.
  const rows = useStableCurve(result);
  const points = useMemo(() => measuredPoints(measured, settings), [measured, settings]);
  const anchors = useAnchorPoints(result);
  const currentPoints = points.filter((p) => p.current).length;
  const measuredCount = points.length === currentPoints ? String(currentPoints) : `${currentPoints} (+${points.length - currentPoints} at other settings)`;
  const running = verifying?.status === 'running';

  return (
    <section className="panel preview" aria-labelledby="preview-title" ref={ref}>
      <header className="panel-header">
        <h2 id="preview-title">Live preview</h2>
        {running ? (
          <button type="button" onClick={() => actions.verifyJobs.cancel()} aria-label="Cancel Verify">
            Verifying… {Math.round((verifying?.fraction ?? 0) * 100)}% · Cancel
          </button>
        ) : (
          <button type="button" onClick={() => void actions.verify('crane')} disabled={result === null}>
            Verify
          </button>
        )}
      </header>
      <EngineNotice error={preview.error} what="Preview" />
      <EngineNotice error={verifying?.error ?? null} what="Verify" />
      <MeasuredOn methods={CRANE_ONLY} />
      {result === null ? (
        preview.error === null && <p className="muted empty">The preview appears once the analysis has gate metrics.</p>
      ) : (
        <div className={stale ? 'stale-result' : undefined} data-testid="preview-result" data-stale={stale}>
          {stale && (
            <p className="stale-mark" role="status">
              From other settings: these values were computed before the last change and are not the current settings’ prediction.
            </p>
          )}
          <div className="stats">
            <Stat label="ΔL_R reasoning (lower is better)" value={formatSigned(result.deltaLossReasoning)} testId="preview-reasoning" />
            <Stat label="ΔL_A tool use (lower is better)" value={formatSigned(result.deltaLossAgent)} testId="preview-agent" />
            <Stat label={measuredCount === '1' ? 'measured point' : 'measured points'} value={measuredCount} testId="preview-measured" />
          </div>
          <PreviewChart rows={rows} measured={points} anchors={anchors} trustedUpTo={result.range?.trustedUpTo ?? null} width={Math.max(240, width - 24)} height={230} />
          <PreviewBreakdown preview={result} />
        </div>
      )}
      <RunHistory />
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

/** The analysis' measured anchors as chart points: the previous array while they are the same (every reply brings new objects). */
function useAnchorPoints(result: Preview | null): readonly MeasuredPoint[] {
  const last = useRef<readonly MeasuredPoint[]>([]);
  return useMemo(() => {
    const next = anchorPoints(result?.range ?? null);
    const same = next.length === last.current.length && next.every((p, i) => {
      const q = last.current[i];
      return q !== undefined && p.alpha === q.alpha && p.reasoning === q.reasoning && p.agent === q.agent;
    });
    if (!same) last.current = next;
    return last.current;
  }, [result]);
}
