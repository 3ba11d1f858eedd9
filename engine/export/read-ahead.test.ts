import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint, type CheckpointTensor } from '../io/checkpoint.ts';
import { decodeHalf, encodeHalf } from '../io/half-float.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint, type FixtureTensor } from '../io/testing/fixtures.ts';
import { ReadAhead, RUN_BYTES } from './read-ahead.ts';

/** Small F32/F16/BF16 tensors across shards, an integer tensor between them, and one too large for a run. */
function mixedTensors(): FixtureTensor[] {
  const small = (name: string, dtype: 'F32' | 'F16' | 'BF16', count: number, seed: number): FixtureTensor => {
    const values = seededFloats(count, seed);
    return { spec: { name, dtype, shape: [count] }, data: dtype === 'F32' ? values : encodeHalf(dtype, values) };
  };
  const large = RUN_BYTES / 2 / 2 + 8; // BF16 values: just over half a run
  return [
    small('a.bf16', 'BF16', 1000, 1),
    small('b.f32', 'F32', 333, 2),
    { spec: { name: 'c.int', dtype: 'I32', shape: [3] }, data: Int32Array.from([7, 8, 9]) },
    small('d.f16', 'F16', 517, 3),
    small('e.large', 'BF16', large, 4),
    ...Array.from({ length: 40 }, (_, i) => small(`f${i}.bf16`, 'BF16', 20_000 + i, 10 + i)),
  ];
}

function bytesOf(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

describe('ReadAhead', () => {
  it('reads every tensor bit for bit as Checkpoint.readFloat32 does, in order, out of order and across shards', () => withTempDir(async (root) => {
    const tensors = mixedTensors();
    // Shards of ~1 MiB: runs stop at shard ends, and the large tensor gets a shard of its own.
    const dir = await writeFixtureCheckpoint(join(root, 'ckpt'), tensors, { maxShardBytes: 1024 ** 2 });
    const checkpoint = await Checkpoint.open(dir);
    try {
      expect(checkpoint.shardFiles.length).toBeGreaterThan(2);
      const floats = [...checkpoint.tensors.values()].filter((t) => t.dtype !== 'I32');
      const into = new Float32Array(RUN_BYTES);
      const pick = (i: number) => floats[i] as CheckpointTensor;
      const orders = [floats, [...floats].reverse(), [pick(30), pick(2), pick(31), pick(0), pick(30)]];
      for (const order of orders) {
        const reader = new ReadAhead(checkpoint, floats);
        try {
          for (const t of order) {
            const got = await reader.readFiniteFloat32(t.name, into);
            const expected = await checkpoint.readFloat32(t.name);
            expect(got.length, t.name).toBe(expected.length);
            expect(bytesOf(got).equals(bytesOf(expected)), t.name).toBe(true);
          }
        } finally {
          await reader.close();
        }
      }
    } finally {
      await checkpoint.close();
    }
  }));

  it('refuses a NaN or ±Inf in any tensor, in a run or read alone, naming the shard, the tensor and the first bad index', () => withTempDir(async (root) => {
    // Each tensor of mixedTensors() in turn gets a bad value (the integer tensor aside); the others stay readable.
    const tensors = mixedTensors().filter((t) => t.spec.dtype !== 'I32');
    const bads = [NaN, Infinity, -Infinity];
    const spoiled = tensors.map((t, k): FixtureTensor => {
      const values = t.spec.dtype === 'F32' ? Float32Array.from(t.data as Float32Array) : decodeHalf(t.spec.dtype as 'F16' | 'BF16', t.data as Uint16Array);
      const at = (k * 7919) % values.length;
      values[at] = bads[k % 3] as number;
      values[values.length - 1] = NaN;
      return { spec: t.spec, data: t.spec.dtype === 'F32' ? values : encodeHalf(t.spec.dtype as 'F16' | 'BF16', values) };
    });
    const dir = await writeFixtureCheckpoint(join(root, 'ckpt'), spoiled, { maxShardBytes: 1024 ** 2 });
    const checkpoint = await Checkpoint.open(dir);
    const reader = new ReadAhead(checkpoint, checkpoint.tensors.values());
    try {
      const into = new Float32Array(RUN_BYTES);
      for (const [k, t] of spoiled.entries()) {
        const { shard } = checkpoint.tensor(t.spec.name);
        const at = (k * 7919) % (t.data.length);
        const expected = at === t.data.length - 1 ? NaN : bads[k % 3];
        await expect(reader.readFiniteFloat32(t.spec.name, into), t.spec.name)
          .rejects.toThrow(`${join(dir, shard)}: tensor "${t.spec.name}": contains ${expected} at flat index ${at}; nothing was written`);
      }
    } finally {
      await reader.close();
      await checkpoint.close();
    }
  }));

  it('names the shard and the tensor when a run cannot be read whole', () => withTempDir(async (root) => {
    const dir = await writeFixtureCheckpoint(join(root, 'ckpt'), mixedTensors().slice(0, 2));
    const checkpoint = await Checkpoint.open(dir);
    try {
      const reader = new ReadAhead(checkpoint, checkpoint.tensors.values());
      await truncate(join(dir, 'model.safetensors'), checkpoint.location('b.f32').position + 4);
      await expect(reader.readFiniteFloat32('a.bf16', new Float32Array(1000))).rejects.toThrow(/model\.safetensors: tensor "a\.bf16": file ended after/);
      await reader.close();
    } finally {
      await checkpoint.close();
    }
  }));
});
