/**
 * Progress of the long pipeline jobs, in the protocol's vocabulary (stage, fraction, ETA), so the
 * server can forward it as `progress`/`stageDone` events and the CLI can draw a bar from it.
 *
 *   const clock = new StageClock('gradients', onProgress);
 *   clock.report(done / total, 'g_R batch 3/8');   // ETA = elapsed · (1 − f) / f
 *
 * The ETA is a straight extrapolation from the stage's own elapsed time: stages are uniform
 * enough (batches, layers, sequences) for that, and it needs no model of the machine.
 */
import type { z } from 'zod';
import type { analysisStageSchema, stageSchema } from '../protocol/common-schemas.ts';

export type StageName = z.infer<typeof stageSchema>;
/** The stages runAnalysis runs (protocol ANALYSIS_STAGES), each with its own cache. */
export type AnalysisStageName = z.infer<typeof analysisStageSchema>;

export interface ProgressEvent {
  readonly stage: StageName;
  readonly fraction: number;
  /** null until some progress has been made. */
  readonly etaSeconds: number | null;
  readonly message?: string;
}

export interface StageDoneEvent<S extends StageName = StageName> {
  readonly stage: S;
  /** True when the stage's cached result was reused. */
  readonly cached: boolean;
  readonly seconds: number;
  /** Why an earlier result of this stage was not reused (settings or inputs changed). */
  readonly staleReasons?: readonly string[];
}

export interface PipelineCallbacks {
  readonly onProgress?: (event: ProgressEvent) => void;
  readonly onStageDone?: (event: StageDoneEvent) => void;
  readonly onLog?: (message: string) => void;
  readonly signal?: AbortSignal;
}

export class StageClock {
  private readonly started = performance.now();

  constructor(readonly stage: StageName, private readonly onProgress?: (event: ProgressEvent) => void) {}

  get seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  report(fraction: number, message?: string): void {
    const f = Math.min(1, Math.max(0, fraction));
    const etaSeconds = f > 0 ? (this.seconds * (1 - f)) / f : null;
    this.onProgress?.({ stage: this.stage, fraction: f, etaSeconds, ...(message === undefined ? {} : { message }) });
  }
}

/** Thrown when a job's AbortSignal fires; the caches it leaves are resumable. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(stage: string) {
    super(`${stage} cancelled; the completed work is cached and a rerun resumes from it`);
  }
}

export function throwIfCancelled(signal: AbortSignal | undefined, stage: string): void {
  if (signal?.aborted === true) throw new CancelledError(stage);
}
