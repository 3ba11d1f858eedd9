/** The finiteness scan over real checkpoint folders: stored bits, chunk by chunk, named errors. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import type { FloatDType } from '../io/dtype.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint, type FixtureTensor } from '../io/testing/fixtures.ts';
import { assertFiniteWeights } from './finite-weights.ts';

function tensor(name: string, dtype: FloatDType, count: number, seed: number, bad?: { at: number; value: number }): FixtureTensor {
  const data = seededFloats(count, seed);
  if (bad !== undefined) data[bad.at] = bad.value;
  return { spec: { name, dtype, shape: [count] }, data };
}

/** Opens a checkpoint of `tensors` (sharded small, so tensors lie in different files) for `body`. */
async function withCheckpoint(tensors: readonly FixtureTensor[], body: (checkpoint: Checkpoint) => Promise<void>): Promise<void> {
  await withTempDir(async (root) => {
    const checkpoint = await Checkpoint.open(await writeFixtureCheckpoint(join(root, 'model'), tensors, { maxShardBytes: 400 }));
    try {
      await body(checkpoint);
    } finally {
      await checkpoint.close();
    }
  });
}

const CLEAN = [tensor('a', 'F32', 50, 1), tensor('b', 'BF16', 61, 2), tensor('c', 'F16', 33, 3), tensor('d', 'F64', 20, 4)];

describe('assertFiniteWeights', () => {
  it('accepts finite weights of every floating dtype and skips integer tensors whose bits look like NaN', () => withCheckpoint(
    [...CLEAN, { spec: { name: 'ids', dtype: 'I32', shape: [4] }, data: Int32Array.of(0x7fc00000, 0x7f800000, -1, 0) }],
    async (checkpoint) => {
      const fractions: number[] = [];
      let before = 0;
      await assertFiniteWeights([checkpoint], { outcome: 'x', chunkBytes: 16, beforeTensor: () => before++, onFraction: (f) => fractions.push(f) });
      expect(before).toBe(4);
      expect(fractions).toEqual([0.25, 0.5, 0.75, 1]);
    },
  ));

  it.each([
    ['F32', NaN, 37],
    ['BF16', Infinity, 60],
    ['BF16', -Infinity, 9],
    ['F16', NaN, 32],
    ['F16', 1e6, 17], // past F16's range: stored as Infinity
    ['F64', -Infinity, 19],
  ] as const)('refuses %s %s at index %i past the first chunks, naming its shard and tensor', (dtype, value, at) => {
    const tensors = [...CLEAN, tensor('e', dtype, 64, 5, { at, value })];
    return withCheckpoint(tensors, async (checkpoint) => {
      const scan = assertFiniteWeights([checkpoint], { outcome: 'nothing was analysed', chunkBytes: 24 });
      const shown = value === 1e6 ? Infinity : value;
      await expect(scan).rejects.toMatchObject({ code: 'non-finite', tensor: 'e', file: join(checkpoint.dir, checkpoint.tensor('e').shard) });
      await expect(scan).rejects.toThrow(`contains ${shown} at flat index ${at}; nothing was analysed`);
    });
  });

  it('reports the first of several bad values, and the first checkpoint before the second', () => withTempDir(async (root) => {
    const first = await writeFixtureCheckpoint(join(root, 'one'), [...CLEAN, tensor('e', 'BF16', 40, 6, { at: 21, value: NaN })]);
    const data = seededFloats(40, 6);
    data[21] = Infinity;
    data[5] = NaN;
    const second = await writeFixtureCheckpoint(join(root, 'two'), [{ spec: { name: 'e', dtype: 'BF16', shape: [40] }, data }]);
    const checkpoints = [await Checkpoint.open(second), await Checkpoint.open(first)];
    try {
      await expect(assertFiniteWeights(checkpoints, { outcome: 'x', chunkBytes: 8 })).rejects.toThrow(/two.*e.*NaN at flat index 5/s);
      await expect(assertFiniteWeights(checkpoints.slice(1), { outcome: 'x' })).rejects.toThrow(/one.*e.*NaN at flat index 21/s);
    } finally {
      await Promise.all(checkpoints.map((c) => c.close()));
    }
  }));

  it('stops when beforeTensor throws (cancellation), before reading the next tensor', () => withCheckpoint(
    [tensor('a', 'F32', 8, 1), tensor('b', 'F32', 8, 2, { at: 0, value: NaN })],
    async (checkpoint) => {
      let calls = 0;
      const scan = assertFiniteWeights([checkpoint], { outcome: 'x', beforeTensor: () => {
        if (++calls === 2) throw new Error('cancelled');
      } });
      await expect(scan).rejects.toThrow('cancelled');
    },
  ));
});
