/**
 * The Δ store on a real scratch file: what spills is read back bit-identical on every later get,
 * computed once; row-sparse Δ stay in memory whatever the budget; beyond both budgets a Δ is
 * recomputed; close deletes the file. Sealed: every Δ (the memory part and row-sparse rows too)
 * read back bit-identical by a read-only view, which leaves the file to its owner; a store that
 * recomputed something cannot be sealed.
 */
import { access, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeltaStore, type TensorDelta } from './delta-store.ts';

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'crane-delta-store-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

/** compute() for one tensor, counting its calls; values with -0 and subnormals, which a conversion would change. */
function tensor(seed: number) {
  const values = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(seed * 1000 + i) * 10 ** ((i % 60) - 45));
  values[3] = -0;
  let calls = 0;
  return { values, calls: () => calls, compute: async (): Promise<TensorDelta[]> => { calls++; return [{ direction: seed, values: Float32Array.from(values) }]; } };
}

describe('delta store', () => {
  it('spills beyond its memory budget and reads the same bytes back, computing each tensor once', async () => {
    const path = join(root, 'spill.scratch');
    const store = await DeltaStore.open(path, { memoryBytes: 4000, scratchBytes: 1 << 20 });
    const [a, b] = [tensor(1), tensor(2)];
    for (let pass = 0; pass < 3; pass++) {
      for (const [name, t] of [['a', a], ['b', b]] as const) {
        const [got] = await store.get(name, t.compute);
        expect(new Uint8Array((got as TensorDelta).values.buffer)).toEqual(new Uint8Array(t.values.buffer));
      }
    }
    expect([a.calls(), b.calls()]).toEqual([1, 1]);
    expect((await stat(path)).size).toBe(4000); // b spilled, a in memory
    await store.close();
    await expect(access(path)).rejects.toThrow();
  });

  it('keeps row-sparse Δ in memory and recomputes beyond both budgets', async () => {
    const store = await DeltaStore.open(join(root, 'none.scratch'), { memoryBytes: 0, scratchBytes: 0 });
    let sparseCalls = 0;
    const sparse = async (): Promise<TensorDelta[]> => { sparseCalls++; return [{ direction: 0, values: new Float32Array(8), rows: Int32Array.of(5), width: 8 }]; };
    const dense = tensor(3);
    for (let pass = 0; pass < 2; pass++) {
      await store.get('embed', sparse);
      await store.get('dense', dense.compute);
    }
    expect([sparseCalls, dense.calls()]).toEqual([1, 2]);
    await store.close();
  });

  it('seals what it keeps into the file, read back bit-identical (rows too) by a read-only view', async () => {
    const path = join(root, 'sealed.scratch');
    const store = await DeltaStore.open(path, { memoryBytes: 4000, scratchBytes: 1 << 20 });
    const [a, b] = [tensor(4), tensor(5)];
    const rows: TensorDelta = { direction: 7, values: Float32Array.of(1.5, -0, 2 ** -140, 3), rows: Int32Array.of(2, 9), width: 2 };
    await store.get('a', a.compute); // memory
    await store.get('b', b.compute); // spilled
    await store.get('rows', async () => [rows]); // row-sparse: memory
    const sealed = await store.seal();
    expect(sealed?.tensors.map(([name]) => name).sort()).toEqual(['a', 'b', 'rows']);
    const view = await DeltaStore.openSealed(sealed as NonNullable<typeof sealed>);
    const never = async (): Promise<TensorDelta[]> => { throw new Error('a sealed view computes nothing it has'); };
    for (const [name, t] of [['a', a], ['b', b]] as const) {
      const [got] = await view.get(name, never);
      expect(new Uint8Array((got as TensorDelta).values.buffer)).toEqual(new Uint8Array(t.values.buffer));
    }
    const [back] = await view.get('rows', never);
    expect(back?.direction).toBe(7);
    expect(new Uint8Array((back as TensorDelta).values.buffer)).toEqual(new Uint8Array(rows.values.buffer));
    expect(Array.from(back?.rows ?? [])).toEqual([2, 9]);
    expect(back?.width).toBe(2);
    await view.close();
    await access(path); // the owner's file
    await store.close();
    await expect(access(path)).rejects.toThrow();
  });

  it('cannot be sealed once a Δ was over both budgets', async () => {
    const store = await DeltaStore.open(join(root, 'over.scratch'), { memoryBytes: 0, scratchBytes: 0 });
    await store.get('dense', tensor(6).compute);
    expect(await store.seal()).toBeUndefined();
    await store.close();
  });
});
