/**
 * Folds the per-batch layer gradients of the gradients stage into the GradientStores in batch
 * order, whatever order parallel workers deliver them in.
 *
 *   const fold = new OrderedGradientFold(stores);
 *   await fold.addLayer(unit, layer, grads)   // resolves once folded: after the set's previous
 *                                             // batch has folded this layer
 *   await fold.commit(unit)                   // resolves once committed: after the previous batch
 *
 * Every layer sum is therefore ((B₀ + B₁) + B₂) + … in batch order, each batch's sum computed
 * by one model pass in sequence order: the stored files are bit-identical for any number of
 * workers. A caller that awaits addLayer before producing the next layers (the workers' ack)
 * keeps at most that many waiting layers per worker in memory.
 *
 *   fold.abandon()      a failed or cancelled run: every wait for a batch that will never
 *                       arrive rejects (FoldAbandonedError), so the run can settle; folds and
 *                       commits already past their wait finish (the stores stay consistent)
 */
import type { GradientStore } from './gradient-store.ts';

/** One batch of one calibration set: the unit of parallel work. */
export interface BatchRef {
  readonly set: string;
  /** Index of the batch in its set (0-based). */
  readonly batch: number;
}

/** A fold step gave up waiting for an earlier batch: the run was abandoned. */
export class FoldAbandonedError extends Error {
  override readonly name = 'FoldAbandonedError';
}

export class OrderedGradientFold {
  private readonly events = new Map<string, Deferred>();
  private abandoned = false;

  /** `stores` by set name; each store's committed batches count as folded and committed. */
  constructor(private readonly stores: ReadonlyMap<string, GradientStore>) {}

  async addLayer(unit: BatchRef, layer: number, grads: ReadonlyMap<string, Float32Array>): Promise<void> {
    const store = this.store(unit);
    await this.after(unit, `layer ${layer}`);
    await store.addLayer(layer, grads, unit.batch);
    this.event(unit.set, unit.batch, `layer ${layer}`).resolve();
  }

  async commit(unit: BatchRef): Promise<void> {
    const store = this.store(unit);
    await this.after(unit, 'commit');
    if (store.batchesDone !== unit.batch) throw new Error(`internal: batch ${unit.batch} of ${unit.set} committed with ${store.batchesDone} batches done`);
    await store.commitBatch();
    this.event(unit.set, unit.batch, 'commit').resolve();
  }

  abandon(): void {
    this.abandoned = true;
    for (const event of this.events.values()) event.reject(new FoldAbandonedError('gradient fold abandoned: the run stopped before an earlier batch arrived'));
  }

  /**
   * Waits for the same step of the set's previous batch, unless that batch was committed before.
   * Checks `abandoned` before waiting too: a step that starts after abandon() (a worker's next
   * layer, queued behind a fold that was writing) would wait on an event nobody rejects.
   */
  private async after(unit: BatchRef, step: string): Promise<void> {
    this.throwIfAbandoned(unit, step);
    if (unit.batch > this.store(unit).batchesDone) await this.event(unit.set, unit.batch - 1, step).promise;
    this.throwIfAbandoned(unit, step);
  }

  private throwIfAbandoned(unit: BatchRef, step: string): void {
    if (this.abandoned) throw new FoldAbandonedError(`gradient fold abandoned before ${step} of ${unit.set} batch ${unit.batch}`);
  }

  private store(unit: BatchRef): GradientStore {
    const store = this.stores.get(unit.set);
    if (store === undefined) throw new Error(`internal: no gradient store for set ${unit.set}`);
    return store;
  }

  private event(set: string, batch: number, step: string): Deferred {
    const key = `${set}\u0000${batch}\u0000${step}`;
    let event = this.events.get(key);
    if (event === undefined) {
      event = deferred();
      this.events.set(key, event);
    }
    return event;
  }
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // nobody may wait on a rejected event; that is not an unhandled rejection
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
