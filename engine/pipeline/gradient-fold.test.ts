/**
 * OrderedGradientFold: batches delivered out of order (as parallel workers deliver them) are
 * stored exactly as the same batches added one after another.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { FoldAbandonedError, OrderedGradientFold } from './gradient-fold.ts';
import { GradientStore } from './gradient-store.ts';

/** A float32 sum that depends on the order: in batch order 3.5, in reverse order 0 (3.5 − 1e8 rounds to −1e8). */
const BATCHES = [1e8, -1e8, 3, 0.5].map((w, b) => new Map([['w', Float32Array.of(w)], ['v', Float32Array.of(b + 0.25)]]));

describe('ordered gradient fold', () => {
  it('stores batches delivered in any order as the in-order sum, committing in batch order', () => withTempDir(async (dir) => {
    const inOrder = await GradientStore.open(join(dir, 'sequential'));
    for (const grads of BATCHES) {
      await inOrder.addLayer(0, grads);
      await inOrder.commitBatch();
    }
    const store = await GradientStore.open(join(dir, 'folded'));
    const fold = new OrderedGradientFold(new Map([['reasoning', store]]));
    const committed: number[] = [];
    const deliver = (batch: number) => fold.addLayer({ set: 'reasoning', batch }, 0, BATCHES[batch] as Map<string, Float32Array>)
      .then(() => fold.commit({ set: 'reasoning', batch }))
      .then(() => void committed.push(batch));
    await Promise.all([3, 1, 2, 0].map(deliver));
    expect(committed).toEqual([0, 1, 2, 3]);
    expect(store.batchesDone).toBe(4);
    expect(await store.readLayer(0)).toEqual(await inOrder.readLayer(0));
    expect((await store.readLayer(0)).get('w')).toEqual(Float32Array.of(3.5));
  }));

  it('continues after batches committed before it was made', () => withTempDir(async (dir) => {
    const store = await GradientStore.open(dir);
    await store.addLayer(0, BATCHES[0] as Map<string, Float32Array>);
    await store.commitBatch();
    const fold = new OrderedGradientFold(new Map([['agent', store]]));
    await Promise.all([2, 1].map(async (batch) => {
      await fold.addLayer({ set: 'agent', batch }, 0, BATCHES[batch] as Map<string, Float32Array>);
      await fold.commit({ set: 'agent', batch });
    }));
    expect(store.batchesDone).toBe(3);
    expect((await store.readLayer(0)).get('w')).toEqual(Float32Array.of(3));
  }));

  it('abandoned, rejects the steps waiting for a batch that never arrives and keeps the last commit', () => withTempDir(async (dir) => {
    const store = await GradientStore.open(dir);
    const fold = new OrderedGradientFold(new Map([['reasoning', store]]));
    await fold.addLayer({ set: 'reasoning', batch: 0 }, 0, BATCHES[0] as Map<string, Float32Array>);
    await fold.commit({ set: 'reasoning', batch: 0 });
    // batch 1 never comes (its worker failed): batch 2's layer and commit wait for it
    const layer = fold.addLayer({ set: 'reasoning', batch: 2 }, 0, BATCHES[2] as Map<string, Float32Array>);
    const commit = fold.commit({ set: 'reasoning', batch: 2 });
    fold.abandon();
    await expect(layer).rejects.toBeInstanceOf(FoldAbandonedError);
    await expect(commit).rejects.toBeInstanceOf(FoldAbandonedError);
    await expect(fold.addLayer({ set: 'reasoning', batch: 1 }, 0, BATCHES[1] as Map<string, Float32Array>)).rejects.toBeInstanceOf(FoldAbandonedError);
    // a step that starts after abandon() and waits for a step nobody asked for before: rejects, does not hang
    await expect(fold.addLayer({ set: 'reasoning', batch: 2 }, 1, BATCHES[2] as Map<string, Float32Array>)).rejects.toBeInstanceOf(FoldAbandonedError);
    expect(store.batchesDone).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(['layer_0@1.safetensors', 'progress.json']);
    expect((await store.readLayer(0)).get('w')).toEqual(Float32Array.of(1e8));
  }));
});
