/** Reads of part of a tensor: chosen rows (readRowsFloat32) and the stored bytes chunk by chunk (streamRaw), on real files. */
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from './checkpoint-error.ts';
import { Checkpoint } from './checkpoint.ts';
import { DTYPE_BYTES } from './dtype.ts';
import { SafetensorsFile } from './safetensors-reader.ts';
import { writeSafetensors } from './safetensors-writer.ts';
import { seededFloats, withTempDir, writeFixtureCheckpoint } from './testing/fixtures.ts';

const FLOAT_DTYPES = ['F64', 'F32', 'F16', 'BF16'] as const;

/** One [7, 3] tensor per float dtype (and an I32 one), written with the project's writer. */
async function withTensors(body: (file: SafetensorsFile, path: string) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const path = join(dir, 'model.safetensors');
    await writeSafetensors(path, [
      ...FLOAT_DTYPES.map((dtype, i) => ({ spec: { name: `w.${dtype}`, dtype, shape: [7, 3] }, data: seededFloats(21, i + 1) })),
      { spec: { name: 'ids', dtype: 'I32' as const, shape: [7, 3] }, data: Int32Array.from({ length: 21 }, (_, i) => i) },
      { spec: { name: 'scalar', dtype: 'F32' as const, shape: [] }, data: Float32Array.of(1) },
      { spec: { name: 'cube', dtype: 'BF16' as const, shape: [3, 2, 2] }, data: seededFloats(12, 9) },
    ]);
    const file = await SafetensorsFile.open(path);
    try {
      await body(file, path);
    } finally {
      await file.close();
    }
  });
}

describe('readRowsFloat32', () => {
  // Runs of consecutive rows asked scattered over the output, asked in place (4, 5, 6 first at
  // entries 0, 1, 2), a lone row, and repeats before and after a row's first place.
  const ROW_LISTS = [[5, 0, 5, 6, 1, 2, 3], [4, 5, 6, 0, 2, 1, 4], [2, 3, 4, 2], [6]];
  it.each(FLOAT_DTYPES.flatMap((dtype) => ROW_LISTS.map((rows) => [dtype, rows] as const)))('gives the %s rows %j, in that order and repeated, exactly as the whole read widens them', (dtype, rows) => withTensors(async (file) => {
    const whole = await file.readFloat32(`w.${dtype}`);
    const expected = rows.flatMap((r) => [...whole.subarray(3 * r, 3 * r + 3)]);
    expect([...(await file.readRowsFloat32(`w.${dtype}`, rows))]).toEqual(expected);
    expect(await file.readRowsFloat32(`w.${dtype}`, [])).toHaveLength(0);
  }));

  it('treats every dimension after the first as the row (a [3, 2, 2] tensor has rows of 4)', () => withTensors(async (file) => {
    const whole = await file.readFloat32('cube');
    expect([...(await file.readRowsFloat32('cube', [2, 1]))]).toEqual([...whole.subarray(8, 12), ...whole.subarray(4, 8)]);
  }));

  it.each([-1, 7, 1.5, NaN])('refuses row %s, naming the file, the tensor and its entry', (row) => withTensors(async (file, path) => {
    const read = file.readRowsFloat32('w.BF16', [0, row]);
    await expect(read).rejects.toThrow(RangeError);
    await expect(read).rejects.toThrow(`${path}: w.BF16: row ${row} (entry 1 of the rows asked) is outside 0…6`);
  }));

  it('refuses a scalar and a non-floating tensor by name', () => withTensors(async (file) => {
    await expect(file.readRowsFloat32('scalar', [0])).rejects.toMatchObject({ code: 'shape', tensor: 'scalar' });
    await expect(file.readRowsFloat32('ids', [0])).rejects.toMatchObject({ code: 'dtype', tensor: 'ids' });
    await expect(file.readRowsFloat32('missing', [0])).rejects.toMatchObject({ code: 'not-found', tensor: 'missing' });
  }));

  it('reads through a checkpoint the rows of the shard holding the tensor', () => withTempDir(async (root) => {
    const tensors = [0, 1, 2].map((i) => ({ spec: { name: `t${i}`, dtype: 'F32' as const, shape: [4, 8] }, data: seededFloats(32, i + 5) }));
    const checkpoint = await Checkpoint.open(await writeFixtureCheckpoint(join(root, 'ckpt'), tensors, { maxShardBytes: 200 }));
    try {
      expect(checkpoint.shardFiles.length).toBeGreaterThan(1);
      expect([...(await checkpoint.readRowsFloat32('t2', [3]))]).toEqual([...(tensors[2]?.data as Float32Array).subarray(24, 32)]);
    } finally {
      await checkpoint.close();
    }
  }));
});

describe('streamRaw', () => {
  it.each([8, 16, 24, 4096])('hands over every stored byte once, in order, with each chunk\'s first element, through a %i-byte buffer', (size) => withTensors(async (file) => {
    for (const name of [...FLOAT_DTYPES.map((d) => `w.${d}`), 'ids', 'cube', 'scalar']) {
      const raw = await file.readRaw(name);
      const elementBytes = raw.BYTES_PER_ELEMENT;
      const scratch = new Uint8Array(size);
      const seen: number[] = [];
      const firsts: number[] = [];
      await file.streamRaw(name, scratch, (chunk, first) => {
        expect(chunk.buffer).toBe(scratch.buffer);
        firsts.push(first);
        expect(first).toBe(seen.length / elementBytes);
        seen.push(...chunk);
      });
      expect(seen).toEqual([...new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)]);
      expect(firsts).toHaveLength(Math.ceil(raw.byteLength / size));
    }
  }));

  it.each([[0, 0], [12, 0], [16, 4]])('refuses a %i-byte buffer at offset %i', (length, offset) => withTensors(async (file) => {
    const scratch = new Uint8Array(new ArrayBuffer(length + offset), offset, length);
    await expect(file.streamRaw('w.F32', scratch, () => undefined)).rejects.toThrow(/not a whole number of aligned 8-byte words/);
  }));

  it('stops at the first error the consumer throws, reading no further', () => withTensors(async (file) => {
    let calls = 0;
    const stream = file.streamRaw('w.F64', new Uint8Array(8), () => {
      calls++;
      if (calls === 2) throw new Error('enough');
    });
    await expect(stream).rejects.toThrow('enough');
    expect(calls).toBe(2);
  }));

  it('names the file and the tensor when the file was cut short after opening', () => withTensors(async (file, path) => {
    const { begin } = file.info('cube');
    await truncate(path, file.header.dataStart + begin + 3 * DTYPE_BYTES.BF16);
    const stream = file.streamRaw('cube', new Uint8Array(16), () => undefined);
    await expect(stream).rejects.toBeInstanceOf(CheckpointError);
    await expect(stream).rejects.toMatchObject({ code: 'truncated', file: path, tensor: 'cube' });
  }));
});
