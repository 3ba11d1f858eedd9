/**
 * LayerDeliveries: steps delivered in the order they were added, each step's own deliveries before
 * the lane's, however late the lane's arrive; a failure skips the steps behind it and is thrown.
 */
import { describe, expect, it } from 'vitest';
import { LayerDeliveries } from './layer-deliveries.ts';

/** A lane answer that resolves only when `release` is called. */
function later(): { lane: () => Promise<(() => void)[]>; release: (deliveries: (() => void)[]) => void } {
  let release: (deliveries: (() => void)[]) => void = () => undefined;
  const answer = new Promise<(() => void)[]>((resolve) => (release = resolve));
  return { lane: () => answer, release };
}

describe('LayerDeliveries', () => {
  it('delivers step by step, own then lane then after, while the lane lags behind', async () => {
    const log: string[] = [];
    const deliveries = new LayerDeliveries();
    const first = later();
    const second = later();
    deliveries.add([() => void log.push('own 0a'), () => void log.push('own 0b')], first.lane, () => void log.push('after 0'));
    deliveries.add([() => void log.push('own 1')], second.lane, () => void log.push('after 1'));
    deliveries.add([() => void log.push('own 2')], undefined, () => void log.push('after 2'));
    await new Promise((resolve) => setImmediate(resolve));
    // Step 0 waits for its lane: nothing of step 1 may come before it.
    expect(log).toEqual(['own 0a', 'own 0b']);
    second.release([() => void log.push('lane 1')]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['own 0a', 'own 0b']);
    first.release([() => void log.push('lane 0')]);
    await deliveries.drain();
    expect(log).toEqual(['own 0a', 'own 0b', 'lane 0', 'after 0', 'own 1', 'lane 1', 'after 1', 'own 2', 'after 2']);
  });

  it('stops at a failed step: the steps behind it are skipped and the error is thrown', async () => {
    const log: string[] = [];
    const deliveries = new LayerDeliveries();
    deliveries.add([() => void log.push('own 0')], undefined, () => void log.push('after 0'));
    deliveries.add([() => void log.push('own 1')], () => Promise.reject(new Error('lane died')), () => void log.push('after 1'));
    deliveries.add([() => void log.push('own 2')], undefined, () => void log.push('after 2'));
    await expect(deliveries.drain()).rejects.toThrow('lane died');
    expect(() => deliveries.throwIfFailed()).toThrow('lane died');
    expect(log).toEqual(['own 0', 'after 0', 'own 1']);
  });

  it('passes an error thrown by `after` (a cancel) on the same way', async () => {
    const deliveries = new LayerDeliveries();
    deliveries.add([], undefined, () => {
      throw new Error('cancelled');
    });
    await expect(deliveries.drain()).rejects.toThrow('cancelled');
  });
});
