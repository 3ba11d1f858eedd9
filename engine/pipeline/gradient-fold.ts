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
 * workers. A caller that awaits addLayer before producing the next layer (the workers' ack)
 * keeps at most one waiting layer per worker in memory.
 */
import type { GradientStore } from './gradient-store.ts';

/** One batch of one calibration set: the unit of parallel work. */
export interface BatchRef {
  readonly set: string;
  /** Index of the batch in its set (0-based). */
  readonly batch: number;
}

export class OrderedGradientFold {
  private readonly events = new Map<string, Deferred>();

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

  /** Waits for the same step of the set's previous batch, unless that batch was committed before. */
  private async after(unit: BatchRef, step: string): Promise<void> {
    if (unit.batch > this.store(unit).batchesDone) await this.event(unit.set, unit.batch - 1, step).promise;
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
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
