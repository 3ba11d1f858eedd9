/**
 * Runs gradient jobs (one batch of one calibration set each) on worker threads.
 *
 *   await runJobsOnWorkers(jobs, { setup, workers, sink, signal })
 *
 * Every worker starts at once and reads its part of the shared tensors (shared-weights.ts); jobs
 * are handed out once all are ready, then in list order to whichever worker is free. Each job's
 * layers go to `sink.onLayer` (acked when it resolves; a worker waits for an ack only with
 * MAX_UNFOLDED_LAYERS layers unacked) and its end to
 * `sink.onDone` (in the background: the worker takes the next job at once). The first failure —
 * an error inside a worker, a worker that dies, a sink that throws, or the signal — terminates
 * every worker, abandons the sink (`sink.abandon`), waits for the sink calls in progress, and
 * rejects: a GradientWorkerError naming
 * the worker and the job, or CancelledError.
 *
 * Workers are TypeScript modules: each starts from worker-bootstrap.ts's source, which registers tsx
 * (the CLI's loader) in the thread and imports the module, so the same sources run under the
 * CLI, vitest and the Electron engine process.
 */
import { Worker } from 'node:worker_threads';
import type { LayerGradsOptions, LossSequence } from '../model/layer-grads.ts';
import { BackendError } from '../tensor/backend.ts';
import type { BatchRef } from './gradient-fold.ts';
import { unpackLayer, type FromWorker, type GradientWorkerData, type GradientWorkerSetup, type ToWorker, type UnitSequence } from './gradient-worker-protocol.ts';
import { CancelledError } from './progress.ts';
import { tsxWorkerSource } from './worker-bootstrap.ts';

export interface GradientJob {
  readonly ref: BatchRef;
  readonly sequences: readonly LossSequence[];
  readonly options: LayerGradsOptions;
  /** How errors and progress name the job, e.g. "g_R batch 3/8". */
  readonly label: string;
}

export interface JobSink {
  onLayer(job: GradientJob, layer: number, grads: Map<string, Float32Array>): Promise<void>;
  onDone(job: GradientJob): Promise<void>;
  /**
   * The run failed: sink calls waiting for a job that will never finish must reject now (the
   * run waits for every sink call in progress before it rejects).
   */
  abandon?(): void;
}

export interface WorkerRunOptions {
  readonly setup: GradientWorkerSetup;
  readonly workers: number;
  readonly sink: JobSink;
  readonly signal?: AbortSignal | undefined;
  /** The worker module (default gradient-worker.ts); tests pass one that misbehaves. */
  readonly workerModule?: URL;
}

/** A gradient worker failed or died; the message names the worker and its job. */
export class GradientWorkerError extends BackendError {
  override readonly name = 'GradientWorkerError';
}

const DEFAULT_WORKER = new URL('./gradient-worker.ts', import.meta.url);

function wireSequence(s: LossSequence): UnitSequence {
  return { ids: Array.from(s.ids), targets: Array.from(s.targets ?? [], Number) };
}

export function runJobsOnWorkers(jobs: readonly GradientJob[], options: WorkerRunOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const { sink, signal } = options;
    const inFlight = new Set<Promise<unknown>>();
    const workers: Worker[] = [];
    const count = Math.min(options.workers, jobs.length);
    const waiting: (() => void)[] = [];
    let next = 0;
    let finished = 0;
    let failure: unknown;
    let closed = false;

    const settle = (): void => {
      closed = true;
      signal?.removeEventListener('abort', onAbort);
      for (const worker of workers) void worker.terminate();
      if (failure !== undefined) sink.abandon?.();
      void Promise.allSettled([...inFlight]).then(() => (failure === undefined ? resolve() : reject(failure)));
    };
    const fail = (error: unknown): void => {
      if (closed) return;
      failure = error;
      settle();
    };
    const onAbort = (): void => fail(new CancelledError('gradients'));
    const track = (work: Promise<unknown>): void => {
      const tracked = work.catch(fail).finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    };

    const startWorker = (id: number): void => {
      const workerData: GradientWorkerData = { ...options.setup, part: { index: id - 1, count } };
      const worker = new Worker(tsxWorkerSource(options.workerModule ?? DEFAULT_WORKER), { eval: true, workerData });
      workers.push(worker);
      let job: GradientJob | undefined;
      let chain: Promise<unknown> = Promise.resolve();
      const name = (): string => `gradient worker ${id}${job === undefined ? ' (starting)' : ` on ${job.label}`}`;
      const dispatch = (): void => {
        if (closed) return;
        const unit = next++;
        job = jobs[unit];
        if (job === undefined) return;
        const message: ToWorker = { type: 'unit', unit, sequences: job.sequences.map(wireSequence), options: job.options };
        worker.postMessage(message);
      };
      worker.on('message', (message: FromWorker) => {
        if (closed) return;
        if (message.type === 'ready') {
          // each worker needs every part of the shared tensors: start when the last is read
          waiting.push(dispatch);
          if (waiting.length === count) for (const start of waiting) start();
        }
        else if (message.type === 'failed') fail(new GradientWorkerError(`${name()} failed: ${message.message}`));
        else if (message.type === 'layer') {
          const current = job as GradientJob;
          chain = chain.then(async () => {
            await sink.onLayer(current, message.layer, unpackLayer(message));
            if (!closed) worker.postMessage({ type: 'ack' } satisfies ToWorker);
          });
          track(chain);
        } else {
          const done = job as GradientJob;
          track(chain.then(() => sink.onDone(done)).then(() => {
            if (++finished === jobs.length && !closed) settle();
          }));
          dispatch();
        }
      });
      worker.on('error', (error) => fail(new GradientWorkerError(`${name()} crashed: ${error.message}`)));
      worker.on('exit', (code) => fail(new GradientWorkerError(`${name()} exited with code ${code} before its work was done`)));
    };

    if (signal?.aborted === true) return reject(new CancelledError('gradients'));
    if (jobs.length === 0) return resolve();
    signal?.addEventListener('abort', onAbort);
    for (let id = 1; id <= count; id++) startWorker(id);
  });
}
