/**
 * Edit workers for an export: each tensor job goes to the worker with the fewest jobs queued.
 *
 *   const pool = EditWorkerPool.start(count, setup)
 *   await pool.run(job) → { payload, note?, inputs }   inputs: the job's buffers, handed back for reuse
 *   await pool.close()
 *
 * A job's buffers are transferred to the worker and back (never copied). A job that fails rejects
 * with the worker's error (a CheckpointError stays one); a worker that crashes or exits rejects
 * its queued jobs and every later one. Workers are TypeScript modules started from a one-line
 * bootstrap that registers tsx in the thread, as the gradient workers are
 * (pipeline/gradient-worker-pool.ts), so the same sources run under the CLI, vitest and Electron.
 */
import { Worker } from 'node:worker_threads';
import {
  fromWireError, fromWirePayload, type EditJob, type EditWorkerSetup, type FromEditWorker,
} from './edit-worker-protocol.ts';

export interface EditedTensor {
  readonly payload: Float32Array | Uint16Array;
  readonly note?: string;
  /** The job's input buffers, free again once the payload has been written. */
  readonly inputs: readonly ArrayBuffer[];
}

interface Pending {
  resolve(result: EditedTensor): void;
  reject(error: Error): void;
}

interface PoolWorker {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

const EDIT_WORKER = new URL('./edit-worker.ts', import.meta.url);
const TSX_API = import.meta.resolve('tsx/esm/api');
const bootstrap = `import(${JSON.stringify(TSX_API)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(EDIT_WORKER.href)}); });`;

export class EditWorkerPool {
  private failure: Error | undefined;
  private closed = false;

  private constructor(private readonly workers: readonly PoolWorker[]) {}

  static start(count: number, setup: EditWorkerSetup): EditWorkerPool {
    const workers = Array.from({ length: count }, () => ({ worker: new Worker(bootstrap, { eval: true, workerData: setup }), pending: new Map<number, Pending>() }));
    const pool = new EditWorkerPool(workers);
    workers.forEach((entry, index) => pool.listen(entry, index + 1));
    return pool;
  }

  get size(): number {
    return this.workers.length;
  }

  run(job: EditJob): Promise<EditedTensor> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const entry = this.workers.reduce((best, w) => (w.pending.size < best.pending.size ? w : best));
    return new Promise((resolve, reject) => {
      entry.pending.set(job.id, { resolve, reject });
      const transfer = new Set([job.instruct?.buffer, job.thinking?.buffer].filter((b): b is ArrayBuffer => b !== undefined));
      entry.worker.postMessage(job, [...transfer]);
    });
  }

  /** Terminates the workers; jobs still queued reject. */
  async close(): Promise<void> {
    this.closed = true;
    this.failure ??= new Error('export edit workers closed');
    for (const { pending } of this.workers) {
      for (const job of pending.values()) job.reject(this.failure);
      pending.clear();
    }
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }

  private listen({ worker, pending }: PoolWorker, id: number): void {
    worker.on('message', (reply: FromEditWorker) => {
      const job = pending.get(reply.id);
      pending.delete(reply.id);
      if (reply.type === 'edited') job?.resolve({ payload: fromWirePayload(reply.payload), ...(reply.note === undefined ? {} : { note: reply.note }), inputs: reply.inputs });
      else job?.reject(fromWireError(reply.error));
    });
    const die = (why: string) => {
      if (this.closed) return;
      this.failure ??= new Error(`export edit worker ${id} ${why}`);
      for (const job of pending.values()) job.reject(this.failure);
      pending.clear();
    };
    worker.on('error', (error) => die(`crashed: ${error.message}`));
    worker.on('exit', (code) => die(`exited with code ${code} before its tensors were edited`));
  }
}
