/**
 * Progress of the long handlers (analyze, verify, export) as protocol events on the requesting
 * connection: `progress {stage, fraction, etaSeconds}`, `stageDone`, and `log` lines.
 *
 *   pipelineCallbacks(ctx) → PipelineCallbacks     what runAnalysis / verifyEdit take
 *   new JobProgress(ctx, 'export').report(f)        for jobs that report bare fractions
 *
 * Progress is throttled (every ~100 ms per stage, and always the first and the last report):
 * a fast stage must not flood a WebSocket with thousands of frames the UI cannot paint anyway.
 */
import type { PipelineCallbacks, ProgressEvent, StageName } from '../pipeline/progress.ts';
import type { HandlerContext } from '../protocol/handlers.ts';

const MIN_INTERVAL_MS = 100;

export class JobProgress {
  private readonly started = performance.now();
  private lastAt = -Infinity;
  private lastStage: StageName | null = null;

  constructor(private readonly ctx: HandlerContext, private readonly stage: StageName) {}

  /** A bare fraction: the ETA is extrapolated from this job's own elapsed time. */
  report(fraction: number): void {
    const f = Math.min(1, Math.max(0, fraction));
    const elapsed = (performance.now() - this.started) / 1000;
    this.emit({ stage: this.stage, fraction: f, etaSeconds: f > 0 ? (elapsed * (1 - f)) / f : null });
  }

  emit(event: Pick<ProgressEvent, 'stage' | 'fraction' | 'etaSeconds'>): void {
    const now = performance.now();
    const boundary = event.stage !== this.lastStage || event.fraction >= 1;
    if (!boundary && now - this.lastAt < MIN_INTERVAL_MS) return;
    this.lastAt = now;
    this.lastStage = event.stage;
    const eta = event.etaSeconds === null || !Number.isFinite(event.etaSeconds) ? null : Math.max(0, event.etaSeconds);
    this.ctx.emit('progress', { requestId: this.ctx.requestId, stage: event.stage, fraction: Math.min(1, Math.max(0, event.fraction)), etaSeconds: eta });
  }

  seconds(): number {
    return (performance.now() - this.started) / 1000;
  }
}

export function log(ctx: HandlerContext, message: string, level: 'debug' | 'info' | 'warn' | 'error' = 'info'): void {
  ctx.emit('log', { level, message, requestId: ctx.requestId });
}

export function pipelineCallbacks(ctx: HandlerContext, stage: StageName): PipelineCallbacks & { progress: JobProgress } {
  const progress = new JobProgress(ctx, stage);
  return {
    progress,
    signal: ctx.signal,
    onProgress: (event) => progress.emit(event),
    onStageDone: (event) => {
      ctx.emit('stageDone', { requestId: ctx.requestId, stage: event.stage, cached: event.cached, seconds: event.seconds });
      const why = event.staleReasons === undefined ? '' : ` (recomputed: ${event.staleReasons.join('; ')})`;
      log(ctx, `${event.stage}: ${event.cached ? 'cached' : `done in ${event.seconds.toFixed(1)} s`}${why}`);
    },
    onLog: (message) => log(ctx, message),
  };
}
