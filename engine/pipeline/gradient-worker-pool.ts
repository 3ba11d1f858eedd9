/**
 * Runs gradient jobs (one batch of one calibration set each) on worker threads.
 *
 *   const times = await runJobsOnWorkers(jobs, { setup, workers, sink, signal })
 *
 * Every worker starts at once and reads chunks of the shared tensors until none is left
 * (shared-read-claims.ts: a worker that starts sooner reads more); jobs are handed out once all
 * are ready, then in list order to whichever worker is free (JobQueue). The run resolves with
 * each worker's timeline (worker-timeline.ts).
 * Each job's layers go to `sink.onLayer` (acked when it resolves; a worker waits for an ack only
 * with MAX_UNFOLDED_LAYERS layers unacked) and its end to `sink.onDone` (in the background: the
 * worker takes the next job at once). The first failure — an error inside a worker, a worker that
 * dies, a sink that throws, or the signal — terminates every worker, abandons the sink
 * (`sink.abandon`), waits for the sink calls in progress, and rejects: a GradientWorkerError
 * naming the worker and the job, or CancelledError.
 *
 * The threads, their faults, the signal and the sink calls in progress are a WorkerGroup
 * (worker-group.ts: track, settled): workers are TypeScript modules started through
 * worker-bootstrap.ts (through tsx from the sources, from their built files in a bundle), so the
 * same sources run under the CLI, vitest and the Electron engine process.
 */
import type { LayerGradsOptions, LossSequence } from '../model/layer-grads.ts';
import { BackendError } from '../tensor/backend.ts';
import type { BatchRef } from './gradient-fold.ts';
import { unpackLayer, type FromWorker, type GradientWorkerData, type GradientWorkerSetup, type ToWorker, type UnitSequence } from './gradient-worker-protocol.ts';
import { sharedReadClaims } from './shared-read-claims.ts';
import { faultText, JobQueue, WorkerGroup } from './worker-group.ts';
import { WorkerTimeline, type PoolTimes } from './worker-timeline.ts';

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

/** Resolves with where each worker's time went (worker-timeline.ts) once every job is done and folded. */
export function runJobsOnWorkers(jobs: readonly GradientJob[], options: WorkerRunOptions): Promise<PoolTimes> {
  return new Promise<PoolTimes>((resolve, reject) => {
    const { sink } = options;
    const count = Math.min(options.workers, jobs.length);
    const waiting: (() => void)[] = [];
    const timeline = new WorkerTimeline();
    const claims = sharedReadClaims();
    const group = new WorkerGroup({
      abort: { signal: options.signal, stage: 'gradients' },
      onEnd: (failure) => {
        if (failure !== undefined) sink.abandon?.();
        void group.settled().then(() => (failure === undefined ? resolve(timeline.summary()) : reject(failure)));
      },
    });
    const queue = new JobQueue(jobs, group);

    const startWorker = (id: number): void => {
      let job: GradientJob | undefined;
      let chain: Promise<unknown> = Promise.resolve();
      const name = (): string => `gradient worker ${id}${job === undefined ? ' (starting)' : ` on ${job.label}`}`;
      const dispatch = (): void => {
        const next = queue.take();
        if (next === undefined) return;
        job = next.job;
        worker.postMessage({ type: 'unit', unit: next.index, sequences: job.sequences.map(wireSequence), options: job.options } satisfies ToWorker);
      };
      timeline.start(id);
      const worker = group.start<FromWorker>({
        module: options.workerModule ?? DEFAULT_WORKER,
        workerData: { ...options.setup, claims } satisfies GradientWorkerData,
        fault: (fault) => new GradientWorkerError(faultText(name(), fault, 'before its work was done')),
        onMessage: (message) => {
          if (message.type === 'ready') {
            timeline.ready(id, worker);
            // each worker needs every chunk of the shared tensors: start when the last worker has read its last
            waiting.push(dispatch);
            if (waiting.length === count) for (const begin of waiting) begin();
          } else if (message.type === 'layer') {
            const current = job as GradientJob;
            chain = chain.then(async () => {
              await sink.onLayer(current, message.layer, unpackLayer(message));
              if (!group.closed) worker.postMessage({ type: 'ack' } satisfies ToWorker);
            });
            group.track(chain);
          } else {
            const done = job as GradientJob;
            timeline.jobDone(id, worker);
            group.track(chain.then(() => sink.onDone(done)).then(() => queue.done()));
            dispatch();
          }
        },
      });
    };

    if (jobs.length === 0) return void group.finish();
    for (let id = 1; id <= count; id++) startWorker(id);
  });
}
