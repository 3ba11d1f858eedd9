import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DTYPE_BYTES, type DType } from './dtype.ts';
import { decodeHalf, encodeHalf } from './half-float.ts';
import { SafetensorsFile } from './safetensors-reader.ts';
import { STAGE_BYTES, writeSafetensors } from './safetensors-writer.ts';
import { viewAs } from './dtype.ts';
import { Checkpoint } from './checkpoint.ts';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from './testing/fixtures.ts';

/** Random bytes (NaN payloads, denormals and all) so the round trip is checked bit for bit. */
function randomBytes(count: number, seed: number): Uint8Array {
  const out = new Uint8Array(count);
  let state = seed;
  for (let i = 0; i < count; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

const ALL_DTYPES = Object.keys(DTYPE_BYTES) as DType[];

describe('safetensors round trip', () => {
  it('is bit-exact for every dtype, including empty and scalar tensors', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'all.safetensors');
      const tensors = ALL_DTYPES.flatMap((dtype, i) => {
        const shape = [3, 5];
        const raw = dtype === 'BOOL' ? Uint8Array.from(randomBytes(15, i), (b) => b & 1) : randomBytes(15 * DTYPE_BYTES[dtype], i + 1);
        return [
          { spec: { name: `t.${dtype}`, dtype, shape }, data: viewAs(dtype, raw) },
          { spec: { name: `empty.${dtype}`, dtype, shape: [0, 4] }, data: viewAs(dtype, new Uint8Array(0)) },
          { spec: { name: `scalar.${dtype}`, dtype, shape: [] }, data: viewAs(dtype, randomBytes(DTYPE_BYTES[dtype], 99 + i)) },
        ];
      });
      await writeSafetensors(path, tensors, { format: 'pt', note: 'round trip' });
      const file = await SafetensorsFile.open(path);
      try {
        expect(file.metadata).toEqual({ format: 'pt', note: 'round trip' });
        expect([...file.tensors.keys()]).toEqual(tensors.map((t) => t.spec.name));
        for (const { spec, data } of tensors) {
          const back = await file.readRaw(spec.name);
          expect(back.constructor).toBe(data.constructor);
          expect(Buffer.from(back.buffer, back.byteOffset, back.byteLength).equals(Buffer.from(data.buffer, data.byteOffset, data.byteLength))).toBe(true);
          expect(file.info(spec.name).shape).toEqual(spec.shape);
        }
      } finally {
        await file.close();
      }
    });
  });

  it('keeps tensors and metadata named like Object.prototype members, through shards and the index', async () => {
    await withTempDir(async (root) => {
      const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'model.norm.weight'];
      const tensors = names.map((name, i) => f32Tensor(name, [4], i + 1));
      const dir = await writeFixtureCheckpoint(join(root, 'ckpt'), tensors, { maxShardBytes: 32 });
      const index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8')) as { weight_map: Record<string, string> };
      expect(Object.keys(index.weight_map)).toEqual(names);
      const checkpoint = await Checkpoint.open(dir);
      try {
        expect([...checkpoint.tensors.keys()]).toEqual(names);
        for (const t of tensors) expect(await checkpoint.readFloat32(t.spec.name)).toEqual(t.data);
      } finally {
        await checkpoint.close();
      }
      const path = join(root, 'meta.safetensors');
      await writeSafetensors(path, [{ spec: { name: 'w', dtype: 'F32', shape: [] }, data: Float32Array.of(1) }], Object.fromEntries([['__proto__', 'p'], ['format', 'pt']]));
      const file = await SafetensorsFile.open(path);
      expect(Object.entries(file.metadata)).toEqual([['__proto__', 'p'], ['format', 'pt']]);
      expect(file.metadata['constructor']).toBeUndefined();
      await file.close();
      await expect(writeSafetensors(join(root, 'm2.safetensors'), [{ spec: { name: '__metadata__', dtype: 'F32', shape: [] }, data: Float32Array.of(1) }]))
        .rejects.toThrow(/tensor "__metadata__": is the name safetensors reserves for metadata/);
    });
  });

  it('writes staged small tensors and a tensor over a stage in between at their header offsets, byte for byte', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'staged.safetensors');
      const big = STAGE_BYTES / 4 + 3; // F32 values: past one stage, written from the caller's array
      const tensors = [
        ...Array.from({ length: 30 }, (_, i) => ({ spec: { name: `s${i}`, dtype: 'BF16' as const, shape: [40_000 + i] }, data: viewAs('BF16', randomBytes(2 * (40_000 + i), i + 1)) })),
        { spec: { name: 'big', dtype: 'F32' as const, shape: [big] }, data: viewAs('F32', randomBytes(4 * big, 77)) },
        ...Array.from({ length: 150 }, (_, i) => ({ spec: { name: `t${i}`, dtype: 'F16' as const, shape: [30_000 + i] }, data: viewAs('F16', randomBytes(2 * (30_000 + i), 100 + i)) })),
      ];
      await writeSafetensors(path, tensors);
      const bytes = await readFile(path);
      const dataStart = 8 + Number(bytes.readBigUInt64LE(0));
      const file = await SafetensorsFile.open(path);
      try {
        for (const { spec, data } of tensors) {
          const { begin, end } = file.info(spec.name);
          expect(bytes.subarray(dataStart + begin, dataStart + end).equals(Buffer.from(data.buffer, data.byteOffset, data.byteLength)), spec.name).toBe(true);
        }
        expect(bytes.length).toBe(dataStart + file.info('t149').end);
      } finally {
        await file.close();
      }
    });
  });

  it('writes files one after another and several at once byte for byte, stage buffers passing from writer to writer', async () => {
    await withTempDir(async (dir) => {
      // each file shorter than the one before: a reused stage still holds the earlier file's bytes past its end
      const files = Array.from({ length: 4 }, (_, f) => Array.from({ length: 3 }, (_, i) => {
        const length = 400_000 - 90_000 * f + i;
        return { spec: { name: `t${i}`, dtype: 'F32' as const, shape: [length] }, data: viewAs('F32', randomBytes(4 * length, 10 * f + i)) };
      }));
      const expectWritten = async (path: string, tensors: (typeof files)[number]): Promise<void> => {
        const bytes = await readFile(path);
        const dataStart = 8 + Number(bytes.readBigUInt64LE(0));
        const file = await SafetensorsFile.open(path);
        try {
          for (const { spec, data } of tensors) {
            const { begin, end } = file.info(spec.name);
            expect(bytes.subarray(dataStart + begin, dataStart + end).equals(Buffer.from(data.buffer, data.byteOffset, data.byteLength)), `${path} ${spec.name}`).toBe(true);
          }
        } finally {
          await file.close();
        }
      };
      for (const [f, tensors] of files.entries()) await writeSafetensors(join(dir, `one-${f}.safetensors`), tensors);
      await Promise.all(files.map((tensors, f) => writeSafetensors(join(dir, `at-once-${f}.safetensors`), tensors)));
      for (const [f, tensors] of files.entries()) {
        await expectWritten(join(dir, `one-${f}.safetensors`), tensors);
        await expectWritten(join(dir, `at-once-${f}.safetensors`), tensors);
      }
    });
  });

  it('writes an 8-byte aligned header that starts with the tensor entries in order', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'a.safetensors');
      await writeSafetensors(path, [
        { spec: { name: 'b', dtype: 'F32', shape: [2] }, data: Float32Array.from([1, 2]) },
        { spec: { name: 'a', dtype: 'F16', shape: [1] }, data: Float32Array.from([0.5]) },
      ]);
      const bytes = await readFile(path);
      const headerLength = Number(bytes.readBigUInt64LE(0));
      expect((8 + headerLength) % 8).toBe(0);
      expect(JSON.parse(bytes.subarray(8, 8 + headerLength).toString())).toEqual({
        b: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
        a: { dtype: 'F16', shape: [1], data_offsets: [8, 10] },
      });
      expect(bytes.length).toBe(8 + headerLength + 10);
      expect(bytes.readFloatLE(8 + headerLength + 4)).toBe(2);
      expect(bytes.readUInt16LE(8 + headerLength + 8)).toBe(0x3800);
    });
  });

  it('narrows float32 values to F16/BF16 on write and widens them on read', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'half.safetensors');
      const values = Float32Array.from([0.1, -3.14159, 65519, 1e-7, Infinity, Number.NaN]);
      await writeSafetensors(path, [
        { spec: { name: 'h', dtype: 'F16', shape: [6] }, data: values },
        { spec: { name: 'b', dtype: 'BF16', shape: [2, 3] }, data: values },
      ]);
      const file = await SafetensorsFile.open(path);
      try {
        expect([...(await file.readFloat32('h'))]).toEqual([...decodeHalf('F16', encodeHalf('F16', values))]);
        expect([...(await file.readFloat32('b'))]).toEqual([...decodeHalf('BF16', encodeHalf('BF16', values))]);
        await expect(file.readFloat32('missing')).rejects.toThrow(/tensor "missing": no such tensor/);
      } finally {
        await file.close();
      }
    });
  });

  it('reads F32, F16 and BF16 tensors into the first elements of a reused array, and refuses one too short', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'into.safetensors');
      const values = Float32Array.from([0.1, -3.14159, 65519, 1e-7, Infinity, -0, 7]);
      await writeSafetensors(path, ['F32', 'F16', 'BF16'].map((dtype, i) => ({ spec: { name: dtype, dtype: dtype as DType, shape: [7 - i] }, data: values.subarray(0, 7 - i) })));
      const file = await SafetensorsFile.open(path);
      try {
        // A view into a larger buffer at an offset, and filled with garbage from an earlier tensor.
        const reused = new Float32Array(new ArrayBuffer(4 * 12), 8, 9).fill(Number.NaN);
        for (const dtype of ['F32', 'F16', 'BF16'] as const) {
          const read = await file.readFloat32(dtype, reused);
          expect(read.buffer).toBe(reused.buffer);
          expect(read.byteOffset).toBe(8);
          expect([...read]).toEqual([...(await file.readFloat32(dtype))]);
        }
        await expect(file.readFloat32('F32', new Float32Array(6))).rejects.toThrow(/F32: 7 values do not fit a buffer of 6/);
      } finally {
        await file.close();
      }
    });
  });

  it('reads F64 tensors as the nearest float32 (into a reused array too); past float32 range is ±Infinity', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'f64.safetensors');
      const values = Float64Array.from([0.1, -1 / 3, 1e-50, 1e300, -1e300, 65504.000001]);
      await writeSafetensors(path, [{ spec: { name: 'w', dtype: 'F64', shape: [6] }, data: values }]);
      const file = await SafetensorsFile.open(path);
      try {
        const expected = [...Float32Array.from(values)];
        expect(expected.slice(3, 5)).toEqual([Infinity, -Infinity]);
        expect([...(await file.readFloat32('w'))]).toEqual(expected);
        const reused = new Float32Array(new ArrayBuffer(4 * 10), 4, 8).fill(Number.NaN);
        const read = await file.readFloat32('w', reused);
        expect(read.buffer).toBe(reused.buffer);
        expect([...read]).toEqual(expected);
      } finally {
        await file.close();
      }
    });
  });

  it('refuses integer tensors as floats and wrong-sized payloads', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'ints.safetensors');
      await writeSafetensors(path, [{ spec: { name: 'ids', dtype: 'I64', shape: [2] }, data: BigInt64Array.from([1n, 2n]) }]);
      const file = await SafetensorsFile.open(path);
      await expect(file.readFloat32('ids')).rejects.toThrow(/tensor "ids": is I64, not a floating type/);
      await file.close();
      await expect(
        writeSafetensors(join(dir, 'bad.safetensors'), [{ spec: { name: 'w', dtype: 'F32', shape: [3] }, data: new Float32Array(2) }]),
      ).rejects.toThrow(/tensor "w": has 2 values but shape \[3\] needs 3/);
      await expect(
        writeSafetensors(join(dir, 'bad2.safetensors'), [{ spec: { name: 'w', dtype: 'I32', shape: [2] }, data: new Float32Array(2) }]),
      ).rejects.toThrow(/tensor "w": a Float32Array cannot be written as I32/);
    });
  });
});
