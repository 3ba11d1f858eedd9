/**
 * Shared tensors read in parts by several workers: together the parts are the tensor exactly as
 * Checkpoint.readFloat32 reads it, for every float dtype, any part count, across shards; rows
 * are the checkpoint's own row reads, or copies out of a shared tensor, refused outside it as the
 * reader refuses them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import type { DType } from '../io/dtype.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import { allocateSharedTensors, fillSharedPart, partRange, withSharedTensors } from './shared-weights.ts';

const DTYPES: readonly DType[] = ['BF16', 'F16', 'F32', 'F64'];
/** 7 × 13 values: no part count used below divides it. */
const SHAPE = [7, 13];

async function checkpoint(dir: string): Promise<Checkpoint> {
  // small shards: several files, and tensors that do not start their file's data
  const tensors = DTYPES.map((dtype, i) => ({ spec: { name: `t.${dtype}`, dtype, shape: SHAPE }, data: seededFloats(91, i + 1) }));
  return Checkpoint.open(await writeFixtureCheckpoint(join(dir, 'ck'), tensors, { maxShardBytes: 400 }));
}

describe('shared tensors read in parts', () => {
  it('splits the values into contiguous parts in order that cover them all', () => {
    for (const count of [1, 2, 3, 5]) {
      const ranges = Array.from({ length: count }, (_, index) => partRange(91, { index, count }));
      expect(ranges[0]?.start).toBe(0);
      expect(ranges.at(-1)?.end).toBe(91);
      ranges.slice(1).forEach((r, i) => expect(r.start).toBe(ranges[i]?.end));
    }
  });

  it('gives every dtype exactly as readFloat32 does, whatever the number of parts', () => withTempDir(async (dir) => {
    const ck = await checkpoint(dir);
    try {
      expect(new Set(DTYPES.map((d) => ck.tensor(`t.${d}`).shard)).size).toBeGreaterThan(1);
      expect(DTYPES.some((d) => ck.tensor(`t.${d}`).begin > 0)).toBe(true);
      const names = DTYPES.map((d) => `t.${d}`);
      for (const count of [1, 2, 3]) {
        const shared = allocateSharedTensors(ck, names);
        await Promise.all(Array.from({ length: count }, (_, index) => fillSharedPart(ck, shared, { index, count })));
        const source = withSharedTensors(ck, shared);
        for (const name of names) expect(await source.readFloat32(name), `${name}, ${count} parts`).toEqual(await ck.readFloat32(name));
        // rows of a shared tensor or of another, as the checkpoint reads them
        const some = withSharedTensors(ck, shared.slice(1));
        for (const name of names) expect(await some.readRowsFloat32?.(name, [6, 0, 6]), `${name} rows`).toEqual(await ck.readRowsFloat32(name, [6, 0, 6]));
        // a shared tensor's rows are a copy: a caller that edits them (a probe's moved rows) leaves every thread's θ_I alone
        const rows = (await source.readRowsFloat32?.('t.F32', [1])) as Float32Array;
        rows.fill(0);
        expect(await source.readFloat32('t.F32')).toEqual(await ck.readFloat32('t.F32'));
      }
    } finally {
      await ck.close();
    }
  }));

  it('refuses rows outside a shared tensor, naming it, as the reader refuses them', () => withTempDir(async (dir) => {
    const ck = await checkpoint(dir);
    try {
      const shared = allocateSharedTensors(ck, ['t.F32']);
      await fillSharedPart(ck, shared, { index: 0, count: 1 });
      const readRows = withSharedTensors(ck, shared).readRowsFloat32 as NonNullable<Checkpoint['readRowsFloat32']>;
      for (const row of [7, -1, 1.5]) {
        await expect(readRows('t.F32', [0, row])).rejects.toThrow(`t.F32 (shared): row ${row} (entry 1 of the rows asked) is outside 0…6`);
        await expect(ck.readRowsFloat32('t.F32', [0, row])).rejects.toThrow(RangeError);
      }
      expect(await readRows('t.F32', [6])).toEqual(await ck.readRowsFloat32('t.F32', [6]));
    } finally {
      await ck.close();
    }
  }));

  it('refuses a tensor that is not floating point, naming it', () => withTempDir(async (dir) => {
    const ids = { spec: { name: 'ids', dtype: 'I32' as const, shape: [4] }, data: Int32Array.of(1, 2, 3, 4) };
    const ck = await Checkpoint.open(await writeFixtureCheckpoint(join(dir, 'ck'), [ids]));
    try {
      expect(() => allocateSharedTensors(ck, ['ids'])).toThrow(/ids.*I32, not a floating type/);
    } finally {
      await ck.close();
    }
  }));
});
