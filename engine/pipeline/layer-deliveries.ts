/**
 * The readings of a two-lane shared forward pass (shared-forward.ts) handed to their measurements
 * in one fixed order, while the two lanes compute at their own pace:
 *
 *   const deliveries = new LayerDeliveries()
 *   deliveries.add(own, lane, after)   // once this thread has finished a layer step (layer, loop pass)
 *   deliveries.throwIfFailed()         // this thread stops at its next layer when a delivery failed
 *   await deliveries.drain()           // every step added so far delivered (or its failure thrown)
 *
 * Steps are delivered in the order they were added; within a step, this thread's deliveries
 * first, then the lane's records for the same step, then `after` — the order a lane in lockstep
 * gave, so every accumulator sums the same values in the same order. Only the waiting changed:
 * this thread's next layer no longer waits for the lane's copy of the last one (nor for the lane's
 * start), so a lane that starts later or is descheduled for a while catches up instead of
 * holding this thread at every layer. A failed step (a consumer's error, the lane's failure, a
 * cancel raised in `after`) skips the steps behind it and is thrown by throwIfFailed and drain.
 */
import type { Delivery } from '../model/tapped-forward.ts';

export class LayerDeliveries {
  private chain: Promise<void> = Promise.resolve();
  private failure: { readonly error: unknown } | undefined;

  /** Queues one step: `own` in order, then the lane's deliveries for it (awaited when due), then `after`. */
  add(own: readonly Delivery[], lane: (() => Promise<readonly Delivery[]>) | undefined, after: () => void): void {
    this.chain = this.chain
      .then(async () => {
        if (this.failure !== undefined) return;
        for (const deliver of own) await deliver();
        for (const deliver of (await lane?.()) ?? []) await deliver();
        after();
      })
      .catch((error: unknown) => {
        this.failure ??= { error };
      });
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }

  async drain(): Promise<void> {
    await this.chain;
    this.throwIfFailed();
  }
}
