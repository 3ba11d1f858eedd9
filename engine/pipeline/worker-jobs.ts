/**
 * The message loop of the engine's worker modules (gradient-, gates-, delta-, curvature-pass- and
 * forward-lane-worker.ts): this thread's port, its messages served one at a time in the order they
 * came, a job's reply posted with its buffers transferred, and a job that throws posted as
 * `{ type: 'failed', message }` — what WorkerGroup (worker-group.ts) turns into the caller's error.
 *
 *   const jobs = workerJobs<FromWorker>('gates-worker.ts', 'gates-workers.ts')
 *   jobs.serve<ToWorker>(async (message) => ({ message: reply, transfer: [buffer] }))
 *   jobs.post(message, transfer?)    a message of the worker's own ('ready', a layer as it is made)
 *   jobs.fail(error)                 `{ type: 'failed', message }` with the error's text
 *
 * One job at a time: a worker holds one model, one backend and one set of reads, and the next job
 * must not interleave its awaits with the current one's. A failed job does not stop the queue (the
 * group ends on the 'failed' message anyway). `now` answers a message at once, outside the queue
 * (a flow-control ack that a running job waits for).
 */
import { parentPort, type MessagePort } from 'node:worker_threads';

/** What a job posts when it is done, and the buffers that go with it (transferred, not copied). */
export interface Reply<Out> {
  readonly message: Out;
  readonly transfer?: readonly ArrayBuffer[];
}

export interface WorkerJobs<Out extends { readonly type: string }> {
  post(message: Out, transfer?: readonly ArrayBuffer[]): void;
  fail(error: unknown): void;
  /**
   * Runs `job` for every message, each once the previous one's has settled, and posts its reply
   * (after any messages the job posted itself while it ran). `now(message)` true: handled
   * already, not queued.
   */
  serve<In>(job: (message: In) => Promise<Reply<Out>> | Reply<Out>, now?: (message: In) => boolean): void;
}

/** This thread's jobs; outside a worker thread an error says which module `starter` starts. */
export function workerJobs<Out extends { readonly type: string }>(module: string, starter: string): WorkerJobs<Out> {
  const port = parentPort;
  if (port === null) throw new Error(`${module} runs as a worker thread (${starter} starts it)`);
  return new PortJobs<Out>(port);
}

class PortJobs<Out extends { readonly type: string }> implements WorkerJobs<Out> {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly port: MessagePort) {}

  post(message: Out, transfer: readonly ArrayBuffer[] = []): void {
    this.port.postMessage(message, [...transfer]);
  }

  readonly fail = (error: unknown): void => {
    this.port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  };

  serve<In>(job: (message: In) => Promise<Reply<Out>> | Reply<Out>, now?: (message: In) => boolean): void {
    this.port.on('message', (message: In) => {
      try {
        if (now?.(message) === true) return;
      } catch (error) {
        return this.fail(error);
      }
      this.queue = this.queue.then(async () => {
        const reply = await job(message);
        this.post(reply.message, reply.transfer);
      }).catch(this.fail);
    });
  }
}
