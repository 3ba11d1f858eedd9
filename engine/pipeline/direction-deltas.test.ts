/**
 * Every tensor's Δ on two threads (computeAll: this thread and a Δ worker) on a real pair
 * (testing/delta-pair.ts), part kept in memory and part spilled: sealed and read back by a
 * passes' view, each is bit-identical to the Δ computed here on demand, lm_head's blend formed
 * by rows on either side (the view from a worker's basis) as the same bits. The worker's own Δ
 * arrive bit-identical to this thread's; a worker that fails names the tensor it was on; a
 * cancelled signal rejects with CancelledError.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaStore, type TensorDelta } from './delta-store.ts';
import { DeltaWorkerError, deltasOnTwoThreads, type DeltaWorkerData } from './delta-threads.ts';
import { ComputedDeltas, SealedDirections } from './direction-deltas.ts';
import { editDirectionsOf } from '../crane/edit-directions.ts';
import { isRowwiseDelta, rowwiseRecipe, type PassDelta } from './rowwise-deltas.ts';
import { CancelledError } from './progress.ts';
import { tensorDeltas } from './tensor-deltas.ts';
import { writeDeltaPair, type DeltaPair } from './testing/delta-pair.ts';

let root: string;
let pair: DeltaPair;
let setup: DeltaWorkerData;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-direction-deltas-'));
  pair = await writeDeltaPair(root);
  setup = { instruct: pair.instruct.dir, thinking: pair.thinking.dir, recipe: pair.basis.recipe, routers: [] };
});
afterAll(async () => {
  await pair.instruct.close();
  await pair.thinking.close();
  await rm(root, { recursive: true, force: true });
});

function plain(deltas: readonly TensorDelta[]) {
  return deltas.map((d) => ({ direction: d.direction, bytes: new Uint8Array(d.values.buffer, d.values.byteOffset, d.values.byteLength), rows: d.rows === undefined ? undefined : Array.from(d.rows), width: d.width }));
}

/** A pass's Δ with a rowwise one formed over all `name`'s rows, as plain data. */
async function formed(name: string, deltas: readonly PassDelta[]) {
  const rowCount = pair.instruct.tensor(name).shape[0] ?? 0;
  return plain(await Promise.all(deltas.map(async (d) => (isRowwiseDelta(d) ? { direction: d.direction, values: await d.rowsOf(Int32Array.from({ length: rowCount }, (_, k) => k)) } : d))));
}

describe('direction deltas', () => {
  it('computes every Δ on two threads, sealed bit-identical to the Δ computed here on demand', async () => {
    const store = await DeltaStore.open(join(root, 'two-threads.scratch'), { memoryBytes: 4000, scratchBytes: 1 << 24 });
    const routers = ['model.norm.weight']; // any tensor can ride along as a router: θ_I, θ_T at slots B, B + 1
    const deltas = new ComputedDeltas(pair.instruct, pair.thinking, pair.basis, store, routers);
    await deltas.computeAll(undefined);
    const sealed = await store.seal();
    if (sealed === undefined) throw new Error('the store should seal');
    // a worker's view: its own basis from the cloned rowwise recipe, forming lm_head's blend from the pair
    const rowwise = { pair, basis: editDirectionsOf(structuredClone(rowwiseRecipe(pair.basis.recipe))) };
    const view = await SealedDirections.open(structuredClone(sealed), deltas.size, pair.basis.directions.length, rowwise);
    const here = new ComputedDeltas(pair.instruct, pair.thinking, pair.basis, await DeltaStore.open(), routers);
    const moved = [...pair.instruct.tensors.keys()].filter((name) => pair.basis.directionsOf(name).length > 0 || routers.includes(name));
    expect(sealed.tensors.map(([name]) => name).sort()).toEqual([...moved].sort());
    expect(sealed.tensors.length).toBeGreaterThan(10);
    for (const name of moved) {
      if (!routers.includes(name)) expect(view.directionsOf(name)).toEqual(here.directionsOf(name));
      expect(await formed(name, await view.deltasOf(name))).toEqual(await formed(name, await here.deltasOf(name)));
    }
    // lm_head: its think rows sealed, its blend formed by rows on either side (the same bits as gathered whole)
    const lmHead = await here.deltasOf('lm_head.weight');
    expect(lmHead.map((d) => isRowwiseDelta(d))).toEqual([false, true]);
    expect(await formed('lm_head.weight', lmHead)).toEqual(plain(await tensorDeltas(pair, pair.basis, 'lm_head.weight')));
    expect(sealed.tensors.find(([name]) => name === 'lm_head.weight')?.[1].length).toBe(1);
    expect((await view.deltasOf('model.norm.weight')).map((d) => d.direction)).toEqual([deltas.size - 2, deltas.size - 1]);
    await store.close();
  });

  it('has the worker\'s Δ arrive bit-identical to this thread\'s', async () => {
    const names = ['lm_head.weight', 'model.layers.0.self_attn.q_proj.weight', 'model.layers.1.mlp.down_proj.weight'];
    const fromWorker = new Map<string, TensorDelta[]>();
    // Nothing computed here: the worker takes every tensor it is sent (two ahead, then one per result).
    const here = new Set<string>();
    await deltasOnTwoThreads(setup, names, async (name) => here.add(name), async (name, deltas) => fromWorker.set(name, deltas));
    expect([...fromWorker.keys(), ...here].sort()).toEqual([...names].sort());
    expect(fromWorker.size).toBeGreaterThanOrEqual(2);
    for (const [name, deltas] of fromWorker) expect(plain(deltas)).toEqual(plain(await tensorDeltas(pair, pair.basis, name, { rowwise: true })));
  });

  it('names the tensor a failing worker was on, and stops on a cancelled signal', async () => {
    const broken = { ...setup, thinking: join(root, 'no-such-checkpoint') };
    const failed = deltasOnTwoThreads(broken, ['model.layers.0.mlp.up_proj.weight'], async () => undefined, async () => undefined);
    await expect(failed).rejects.toBeInstanceOf(DeltaWorkerError);
    await expect(failed).rejects.toThrow(/^the Δ worker on model\.layers\.0\.mlp\.up_proj\.weight failed: .*no-such-checkpoint/);
    const controller = new AbortController();
    controller.abort();
    await expect(deltasOnTwoThreads(setup, ['lm_head.weight'], async () => undefined, async () => undefined, controller.signal)).rejects.toBeInstanceOf(CancelledError);
  });
});
