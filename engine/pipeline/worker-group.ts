/**
 * Worker threads that end together: the plumbing the gradient pool, the gates workers, the
 * curvature workers, the curvature's Δ worker (delta-threads.ts) and the forward lane share.
 *
 *   const group = new WorkerGroup({ onEnd: (failure) => …, abort: { signal, stage: 'gates' } })
 *   const worker = group.start({ module, workerData, onMessage, fault })
 *   group.track(promise)     // the caller's work for the group (a sink's write): a rejection fails it
 *   await group.settled()    // every tracked work in progress has settled (onEnd waits for it)
 *   group.fail(error)        // ends the group with this failure (the first failure wins)
 *   await group.finish()     // ends it with success; resolves once every thread has stopped
 *   const queue = new JobQueue(jobs, group)   // queue.take() for a free worker, queue.done() per
 *                                             // finished job: the last finishes the group
 *
 * A worker module (a TypeScript file, started through worker-bootstrap.ts) posts its own
 * messages and `{ type: 'failed', message }` when its work throws (worker-jobs.ts: the loop every
 * worker module serves its messages with). The first failure — a
 * 'failed' message, an error that kills a worker, a worker that exits, onMessage throwing, the
 * abort signal (CancelledError naming the stage) or the caller's fail() — terminates every
 * worker and calls onEnd once with it; finish() calls onEnd once with undefined. After either,
 * the group is closed: messages and exits of its workers are ignored. A worker's fault becomes
 * the caller's error (a BackendError subclass naming the worker and its work, faultText).
 */
import { Worker } from 'node:worker_threads';
import { CancelledError } from './progress.ts';
import { workerSource } from './worker-bootstrap.ts';

/** What went wrong in one worker thread. */
export type WorkerFault =
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'crashed'; readonly message: string }
  | { readonly kind: 'exited'; readonly code: number };

/** A worker's message of failure: its work threw with this text. */
interface FailedMessage {
  readonly type: 'failed';
  readonly message: string;
}

export interface WorkerStart<FromWorker extends { readonly type: string }> {
  readonly module: URL;
  readonly workerData: unknown;
  /** Every message but 'failed', while the group is open; a throw fails the group. */
  readonly onMessage: (message: Exclude<FromWorker, FailedMessage>) => void;
  /** The error a fault of this worker ends the group with (faultText words it the usual way). */
  readonly fault: (fault: WorkerFault) => Error;
}

export interface WorkerGroupOptions {
  /** Called once: with the first failure, or with undefined after finish(). */
  readonly onEnd: (failure: Error | undefined) => void;
  /** A signal that ends the group with CancelledError(stage). */
  readonly abort?: { readonly signal: AbortSignal | undefined; readonly stage: string };
}

/**
 * "NAME failed: …", "NAME crashed: …", "NAME exited with code 3", the last followed by `unfinished`
 * when given (what the exit left undone, e.g. "before its work was done").
 */
export function faultText(name: string, fault: WorkerFault, unfinished?: string): string {
  if (fault.kind === 'exited') return `${name} exited with code ${fault.code}${unfinished === undefined ? '' : ` ${unfinished}`}`;
  return `${name} ${fault.kind}: ${fault.message}`;
}

export class WorkerGroup {
  private readonly workers: Worker[] = [];
  private readonly tracked = new Set<Promise<void>>();
  private stopped: Promise<void> | undefined;
  private readonly onAbort = (): void => this.fail(new CancelledError(this.options.abort?.stage as string));

  /**
   * A signal that has already fired ends the group in a microtask: after the caller's synchronous
   * setup, whose workers it then stops, so that no caller checks `closed` between the two.
   */
  constructor(private readonly options: WorkerGroupOptions) {
    const signal = options.abort?.signal;
    if (signal?.aborted === true) queueMicrotask(this.onAbort);
    else signal?.addEventListener('abort', this.onAbort);
  }

  /** True once the group has ended, with success or failure. */
  get closed(): boolean {
    return this.stopped !== undefined;
  }

  start<FromWorker extends { readonly type: string }>(spec: WorkerStart<FromWorker>): Worker {
    if (this.closed) throw new Error('internal: a worker started in a group that has ended');
    const worker = new Worker(workerSource(spec.module), { eval: true, workerData: spec.workerData });
    this.workers.push(worker);
    worker.on('message', (message: FromWorker | FailedMessage) => {
      if (this.closed) return;
      if (isFailed(message)) return this.fail(spec.fault({ kind: 'failed', message: message.message }));
      try {
        spec.onMessage(message as Exclude<FromWorker, FailedMessage>);
      } catch (error) {
        this.fail(error);
      }
    });
    worker.on('error', (error) => this.fail(spec.fault({ kind: 'crashed', message: error.message })));
    worker.on('exit', (code) => this.fail(spec.fault({ kind: 'exited', code })));
    return worker;
  }

  /** Work done for the group outside its threads: its rejection fails the group. */
  track(work: Promise<unknown>): void {
    const settled: Promise<void> = work.then(() => undefined, (error: unknown) => this.fail(error)).finally(() => this.tracked.delete(settled));
    this.tracked.add(settled);
  }

  /**
   * Resolves once the tracked work in progress now has settled: a run that failed waits for its
   * sink's writes before it rejects, so nothing writes after the caller has moved on.
   */
  settled(): Promise<void> {
    return Promise.all([...this.tracked]).then(() => undefined);
  }

  /** A failure that is not an Error (a rejected non-Error) becomes one with its text. */
  fail(failure: unknown): void {
    if (!this.closed) this.end(failure instanceof Error ? failure : new Error(String(failure)));
  }

  finish(): Promise<void> {
    if (!this.closed) this.end(undefined);
    return this.stopped as Promise<void>;
  }

  private end(failure: Error | undefined): void {
    this.options.abort?.signal?.removeEventListener('abort', this.onAbort);
    this.stopped = Promise.all(this.workers.map((worker) => worker.terminate())).then(() => undefined);
    this.options.onEnd(failure);
  }
}

/**
 * Jobs for a group's workers, each handed to whichever worker is free, in list order; the group
 * finishes when the last job is done. Every pool of identical workers dispatches this way.
 */
export class JobQueue<Job> {
  private handedOut = 0;
  private finished = 0;

  constructor(private readonly jobs: readonly Job[], private readonly group: WorkerGroup) {}

  /** The next job and its index in the list; undefined once every job is out or the group has ended. */
  take(): { readonly job: Job; readonly index: number } | undefined {
    if (this.group.closed || this.handedOut === this.jobs.length) return undefined;
    const index = this.handedOut++;
    return { job: this.jobs[index] as Job, index };
  }

  /** A job is finished; the last one finishes the group. */
  done(): void {
    if (++this.finished === this.jobs.length) void this.group.finish();
  }
}

function isFailed(message: { readonly type: string }): message is FailedMessage {
  return message.type === 'failed';
}
