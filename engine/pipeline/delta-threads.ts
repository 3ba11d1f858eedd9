/**
 * Every tensor's Δ on two threads at once: this one and one worker thread (delta-worker.ts),
 * each taking the next tensor from one list, largest first, so neither waits while the other
 * still has work.
 *
 *   await deltasOnTwoThreads(setup, names, here, keep, signal?)
 *     here(name):         computes and keeps a tensor's Δ on this thread
 *     keep(name, deltas): keeps what the worker computed (its arrays transferred, not copied)
 *
 * The worker rebuilds the basis from its recipe (edit-directions.ts) and computes each tensor
 * with tensorDeltas exactly as this thread does, so every Δ is the same bits whichever thread
 * made it. It is sent two tensors ahead, so it has the next one while this thread is busy.
 * The first failure — the worker's (a DeltaWorkerError naming the tensor), here or keep
 * throwing, or the signal (CancelledError) — stops both and rejects once the worker has ended.
 */
import type { DirectionRecipe } from '../crane/edit-directions.ts';
import type { TensorDelta } from './delta-store.ts';
import { throwIfCancelled } from './progress.ts';
import { faultText, WorkerGroup } from './worker-group.ts';

/** The Δ worker failed or died; the message names the tensor it was computing. */
export class DeltaWorkerError extends Error {
  override readonly name = 'DeltaWorkerError';
}

export interface DeltaWorkerData {
  readonly instruct: string;
  readonly thinking: string;
  readonly recipe: DirectionRecipe;
  /** Routers whose θ_I, θ_T ride along, in direction-deltas.ts's order (their slots follow the directions). */
  readonly routers: readonly string[];
}

export type ToDeltaWorker = { readonly type: 'tensor'; readonly name: string };
export type FromDeltaWorker = { readonly type: 'deltas'; readonly name: string; readonly deltas: TensorDelta[] } | { readonly type: 'failed'; readonly message: string };

const WORKER = new URL('./delta-worker.ts', import.meta.url);
/** Tensors the worker holds at once: the one it computes and the next. */
const AHEAD = 2;

export async function deltasOnTwoThreads(
  setup: DeltaWorkerData, names: readonly string[], here: (name: string) => Promise<unknown>, keep: (name: string, deltas: TensorDelta[]) => Promise<unknown>, signal?: AbortSignal,
): Promise<void> {
  const queue = [...names];
  const sent: string[] = [];
  let hereDone = false;
  let onEnd: (failure: Error | undefined) => void = () => undefined;
  const ended = new Promise<Error | undefined>((resolve) => (onEnd = resolve));
  const group = new WorkerGroup({ abort: { signal, stage: 'curvature' }, onEnd: (failure) => onEnd(failure) });
  const finishWhenDone = (): void => {
    if (hereDone && sent.length === 0) void group.finish();
  };
  const worker = group.start<FromDeltaWorker>({
    module: WORKER,
    workerData: setup,
    fault: (fault) => new DeltaWorkerError(faultText(`the Δ worker${sent[0] === undefined ? '' : ` on ${sent[0]}`}`, fault, 'before its tensor was done')),
    onMessage: ({ name, deltas }) => {
      sent.shift();
      group.track(keep(name, deltas));
      send();
      finishWhenDone();
    },
  });
  const send = (): void => {
    const name = queue.shift();
    if (name === undefined) return;
    sent.push(name);
    worker.postMessage({ type: 'tensor', name } satisfies ToDeltaWorker);
  };
  for (let i = 0; i < AHEAD; i++) send();
  try {
    for (let name = queue.shift(); name !== undefined && !group.closed; name = queue.shift()) {
      throwIfCancelled(signal, 'curvature');
      await here(name);
    }
  } catch (error) {
    group.fail(error);
  }
  hereDone = true;
  finishWhenDone();
  const failure = await ended;
  await group.finish();
  await group.settled();
  if (failure !== undefined) throw failure;
}
