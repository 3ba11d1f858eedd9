/**
 * Shared tensors read in claimed chunks: readers that run at once read every chunk exactly once
 * between them, and the result is the tensor as Checkpoint.readFloat32 reads it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import { fillClaimedParts, sharedReadClaims } from './shared-read-claims.ts';
import { allocateSharedTensors, withSharedTensors } from './shared-weights.ts';

describe('shared tensors read in claimed chunks', () => {
  it('reads each chunk once between concurrent readers, the values exactly as readFloat32', () => withTempDir(async (dir) => {
    const tensors = (['BF16', 'F32'] as const).map((dtype, i) => ({ spec: { name: `t.${dtype}`, dtype, shape: [11, 17] }, data: seededFloats(187, i + 3) }));
    const ck = await Checkpoint.open(await writeFixtureCheckpoint(join(dir, 'ck'), tensors, { maxShardBytes: 600 }));
    try {
      const names = tensors.map((t) => t.spec.name);
      const shared = allocateSharedTensors(ck, names);
      const claims = sharedReadClaims(7);
      const counts = await Promise.all([1, 2, 3].map(() => fillClaimedParts(ck, shared, claims)));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(7);
      // a reader that comes after the last claim finds nothing left to read
      expect(await fillClaimedParts(ck, shared, claims)).toBe(0);
      const source = withSharedTensors(ck, shared);
      for (const name of names) expect(await source.readFloat32(name), name).toEqual(await ck.readFloat32(name));
    } finally {
      await ck.close();
    }
  }));
});
