/**
 * A second lane for shared forward passes: a worker thread (forward-lane-worker.ts) with its own
 * backend and its own handle on the checkpoint runs part of each batch, layer by layer beside the
 * calling thread, and posts each layer's readings back as plain records.
 *
 *   const lane = ForwardLane.launch(checkpointDir)   // returns at once; the worker starts up meanwhile
 *   await lane.ready()                         // optional: resolves once it has opened its checkpoint
 *   const run = lane.run(sequences)            // the worker starts on them as soon as it is up
 *   await run.layer(layer, pass)               // that layer's records, in sequence and request order
 *   await run.done()
 *   await lane.close()
 *
 * The worker reads the decoder layers itself (a layer is not worth sharing, shared-weights.ts),
 * so the two lanes overlap their reads as well as their compute; the embedding rows of its
 * sequences come with the batch (transferred), so it never holds a copy of the embedding. A worker that fails or dies
 * rejects every wait with a ForwardLaneError naming what it was doing. A lane is launched without
 * waiting for its start (module graph, backend: about a second of CPU), so the caller computes its
 * own part of a pass meanwhile; a batch posted before then waits in the worker.
 */
import type { Worker } from 'node:worker_threads';
import { memoryBudget } from '../model/memory-plan.ts';
import { BackendError, requireActiveBackend } from '../tensor/backend.ts';
import type { FromLane, LaneRecord, LaneSequence, LaneSetup, ToLane } from './forward-lane-protocol.ts';
import { faultText, WorkerGroup } from './worker-group.ts';

export class ForwardLaneError extends BackendError {
  override readonly name = 'ForwardLaneError';
}

const WORKER = new URL('./forward-lane-worker.ts', import.meta.url);

export interface LaneRun {
  layer(layer: number, pass: number): Promise<readonly LaneRecord[]>;
  done(): Promise<void>;
}

/** Messages in arrival order; a wait takes the next one, a failure rejects every wait. */
class Inbox {
  private readonly queue: FromLane[] = [];
  private readonly waiting: { resolve: (m: FromLane) => void; reject: (e: Error) => void }[] = [];
  private failure: Error | undefined;

  push(message: FromLane): void {
    const next = this.waiting.shift();
    if (next === undefined) this.queue.push(message);
    else next.resolve(message);
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }

  next(): Promise<FromLane> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const message = this.queue.shift();
    if (message !== undefined) return Promise.resolve(message);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
}

export class ForwardLane {
  /** The worker's 'ready', the first message it sends (taken before any other wait). */
  private readonly started: Promise<void>;

  private constructor(private readonly worker: Worker, private readonly group: WorkerGroup, private readonly inbox: Inbox) {
    this.started = this.expect('ready').then(() => undefined);
    // A start that fails also rejects the waits behind it; this one need not be awaited.
    this.started.catch(() => undefined);
  }

  static launch(checkpointDir: string): ForwardLane {
    const backend = requireActiveBackend('a shared forward pass');
    const inbox = new Inbox();
    const group = new WorkerGroup({
      onEnd: (failure) => {
        if (failure !== undefined) inbox.fail(failure);
      },
    });
    const worker = group.start<FromLane>({
      module: WORKER,
      workerData: { checkpointDir, backend, memoryBudget: memoryBudget() } satisfies LaneSetup,
      fault: (fault) => new ForwardLaneError(faultText('forward lane', fault)),
      onMessage: (message) => inbox.push(message),
    });
    return new ForwardLane(worker, group, inbox);
  }

  /** Resolves once the worker has its backend and checkpoint; rejects with what stopped it. */
  ready(): Promise<void> {
    return this.started;
  }

  run(sequences: readonly LaneSequence[]): LaneRun {
    this.worker.postMessage({ type: 'batch', sequences } satisfies ToLane, sequences.map((s) => s.embedded.buffer as ArrayBuffer));
    return {
      layer: async (layer, pass) => {
        const message = await this.expect('layer');
        if (message.layer !== layer || message.pass !== pass) throw new ForwardLaneError(`forward lane sent layer ${message.layer} (pass ${message.pass}) where layer ${layer} (pass ${pass}) was due`);
        return message.records;
      },
      done: async () => void (await this.expect('done')),
    };
  }

  async close(): Promise<void> {
    await this.group.finish();
  }

  private async expect<T extends FromLane['type']>(type: T): Promise<Extract<FromLane, { type: T }>> {
    const message = await this.inbox.next();
    if (message.type !== type) throw new ForwardLaneError(`forward lane sent '${message.type}' where '${type}' was due`);
    return message as Extract<FromLane, { type: T }>;
  }
}
