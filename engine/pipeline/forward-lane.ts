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
 *   lane.computing                             // a batch is still running there
 *   await lane.solve(gram.snapshot(), options) // a GSP key's projector, solved there
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
import type { GramSnapshot } from '../crane/gram-accumulator.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';
import type { FromLane, LaneRecord, LaneSequence, LaneSetup, SolveOptions, ToLane } from './forward-lane-protocol.ts';
import { faultText, WorkerGroup } from './worker-group.ts';

export class ForwardLaneError extends BackendError {
  override readonly name = 'ForwardLaneError';
}

const WORKER = new URL('./forward-lane-worker.ts', import.meta.url);

export interface LaneRun {
  layer(layer: number, pass: number): Promise<readonly LaneRecord[]>;
  done(): Promise<void>;
}

/** Messages by type, each type in arrival order; a wait takes the next of its type, a failure rejects every wait. */
class Inbox {
  private readonly queues = new Map<FromLane['type'], FromLane[]>();
  private readonly waiting = new Map<FromLane['type'], { resolve: (m: FromLane) => void; reject: (e: Error) => void }[]>();
  private failure: Error | undefined;
  /** How many 'done' messages have arrived (taken or not). */
  batchesDone = 0;

  push(message: FromLane): void {
    if (message.type === 'done') this.batchesDone++;
    const next = this.waiting.get(message.type)?.shift();
    if (next !== undefined) return next.resolve(message);
    listOf(this.queues, message.type).push(message);
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const waits of this.waiting.values()) for (const w of waits.splice(0)) w.reject(this.failure);
  }

  next<T extends FromLane['type']>(type: T): Promise<Extract<FromLane, { type: T }>> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const message = this.queues.get(type)?.shift();
    if (message !== undefined) return Promise.resolve(message as Extract<FromLane, { type: T }>);
    return new Promise((resolve, reject) => {
      listOf(this.waiting, type).push({ resolve: resolve as (m: FromLane) => void, reject });
    });
  }
}

/** The map's list for `key`, created empty on first use (appended to in place, not copied per item). */
function listOf<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (list === undefined) map.set(key, (list = []));
  return list;
}

export class ForwardLane {
  /** The worker's 'ready', the first message it sends (taken before any other wait). */
  private readonly started: Promise<void>;
  private batchesPosted = 0;

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

  /** True while a batch posted to the lane has not finished: a solve posted now would wait for it. */
  get computing(): boolean {
    return this.inbox.batchesDone < this.batchesPosted;
  }

  /** projectorOfRows on the lane's thread (after its batches in flight): the same bits as here. The snapshot's buffer is transferred. */
  async solve(gram: GramSnapshot, options: SolveOptions): Promise<GspProjector | undefined> {
    const values = 'rows' in gram ? gram.rows : gram.upper;
    this.worker.postMessage({ type: 'solve', gram, options } satisfies ToLane, [values.buffer as ArrayBuffer]);
    return (await this.expect('solved')).projector ?? undefined;
  }

  run(sequences: readonly LaneSequence[]): LaneRun {
    this.batchesPosted++;
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

  private expect<T extends FromLane['type']>(type: T): Promise<Extract<FromLane, { type: T }>> {
    return this.inbox.next(type);
  }
}
