/**
 * Progress events as terminal lines (the CLI's bars), throttled: one line per second per stage
 * at most, plus each stage's end. CliIo.err writes whole lines, so a bar is redrawn as a new
 * line rather than in place — readable in logs too.
 *
 *   const bar = new ProgressPrinter(io.err);  bar.progress(event);  bar.stageDone(event);
 */
import type { ProgressEvent, StageDoneEvent } from './progress.ts';

const WIDTH = 24;
const INTERVAL_MS = 1000;

export class ProgressPrinter {
  private last = new Map<string, number>();

  constructor(private readonly write: (line: string) => void) {}

  progress(event: ProgressEvent): void {
    const now = performance.now();
    if (event.fraction < 1 && now - (this.last.get(event.stage) ?? -Infinity) < INTERVAL_MS) return;
    this.last.set(event.stage, now);
    const filled = Math.round(event.fraction * WIDTH);
    const eta = event.etaSeconds === null ? '' : ` ETA ${formatDuration(event.etaSeconds)}`;
    this.write(`${event.stage.padEnd(10)} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${(event.fraction * 100).toFixed(0).padStart(3)}%${eta}${event.message === undefined ? '' : `  ${event.message}`}`);
  }

  stageDone(event: StageDoneEvent): void {
    const why = event.staleReasons === undefined ? '' : ` (recomputed: ${event.staleReasons.join(', ')})`;
    this.write(`${event.stage.padEnd(10)} ${event.cached ? 'cached' : `done in ${formatDuration(event.seconds)}`}${why}`);
  }
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
