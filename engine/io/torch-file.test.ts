import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointError } from './checkpoint-error.ts';
import { readTorchFile, writeTorchFile, type TorchTensor, type TorchValue } from './torch-file.ts';
import { buildStoredZip, type ZipInput } from './zip-archive.ts';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'crane-torch-file-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

const tensor = (dtype: TorchTensor['dtype'], shape: number[], values: number[]): TorchTensor => ({ kind: 'tensor', dtype, shape, values: Float32Array.from(values) });

async function refusal(read: Promise<unknown>): Promise<CheckpointError> {
  const error: unknown = await read.then(() => undefined, (caught: unknown) => caught);
  if (error instanceof CheckpointError) return error;
  throw new Error(`expected a CheckpointError, got ${String(error)}`);
}

describe('writeTorchFile → readTorchFile', () => {
  it('round-trips a projector-shaped tree of every dtype identically', async () => {
    const tree = new Map<string, TorchValue>([
      ['layer_0_attn_input', new Map<string, TorchValue>([
        ['V_r', tensor('F32', [3, 2], [0.1, -2, 3.5e-8, 4, 1e30, -0])],
        ['sigma', tensor('F32', [2], [7.25, 0.5])],
      ])],
      ['layer_0_ffn_input', new Map<string, TorchValue>([
        ['V_r', tensor('BF16', [2, 1], [1.5, -0.0078125])],
        ['sigma', tensor('F16', [1], [65504])],
      ])],
      ['wide', tensor('F64', [2, 2], [1, 2, 3, 4])],
      ['scalar', tensor('F32', [], [42])],
      ['empty', tensor('F32', [0, 4], [])],
      ['meta', [1, -3_000_000_000, 2.5, 'text', true, false, null, [], new Map()]],
      ['__proto__', 'an ordinary key'],
    ]);
    const path = join(dir, 'format_projectors.pt');
    await writeTorchFile(path, tree);
    expect(await readTorchFile(path)).toEqual(tree);
    expect(await readdir(dir)).toEqual(['format_projectors.pt']);
  });

  it('rounds values to the stored half dtype (BF16 keeps 8 bits of mantissa)', async () => {
    const path = join(dir, 'h.pt');
    await writeTorchFile(path, tensor('BF16', [2], [1 + 2 ** -9, 3.14159]));
    expect(await readTorchFile(path)).toEqual(tensor('BF16', [2], [1, 3.140625]));
  });

  it('refuses a tensor whose shape does not hold its values and leaves no file behind', async () => {
    const path = join(dir, 'bad.pt');
    const error = await refusal(writeTorchFile(path, new Map([['V_r', tensor('F32', [2, 2], [1, 2, 3])]])));
    expect(error.message).toBe(`${path}: tensor "/V_r": shape [2, 2] does not hold 3 values`);
    expect(await readdir(dir)).toEqual([]);
  });
});

/** A torch.save layout around a hand-written pickle, for the views torch.save writes but we never do. */
async function handMadeTorchFile(name: string, pickle: Buffer, storages: Record<string, Buffer>): Promise<string> {
  const entries: ZipInput[] = [
    { name: 'archive/data.pkl', data: pickle },
    { name: 'archive/byteorder', data: Buffer.from('little') },
    ...Object.entries(storages).map(([key, data]) => ({ name: `archive/data/${key}`, data })),
  ];
  const path = join(dir, name);
  await writeFile(path, Buffer.concat(buildStoredZip(path, entries)));
  return path;
}

const text = (value: string) => {
  const header = Buffer.alloc(5);
  header[0] = 0x58; // BINUNICODE
  header.writeUInt32LE(Buffer.byteLength(value), 1);
  return Buffer.concat([header, Buffer.from(value)]);
};
const ints = (...values: number[]) => { // MARK, BININT (i32 LE) per value, TUPLE
  const tuple = Buffer.alloc(2 + 5 * values.length);
  tuple[0] = 0x28;
  values.forEach((value, i) => { tuple[1 + 5 * i] = 0x4a; tuple.writeInt32LE(value, 2 + 5 * i); });
  tuple[tuple.length - 1] = 0x74;
  return tuple;
};

/** _rebuild_tensor_v2 over FloatStorage `key` of `numel` elements, as pickle opcodes. */
function rebuild(key: string, numel: number, offset: number, size: number[], stride: number[]): Buffer {
  return Buffer.concat([
    Buffer.from('ctorch._utils\n_rebuild_tensor_v2\n('),
    Buffer.from('('), text('storage'), Buffer.from('ctorch\nFloatStorage\n'), text(key), text('cpu'), Buffer.from([0x4b, numel, 0x74, 0x51]),
    Buffer.from([0x4b, offset]), ints(...size), ints(...stride),
    Buffer.from([0x89]), Buffer.from('ccollections\nOrderedDict\n)R'), Buffer.from('tR'),
  ]);
}
const f32 = (...values: number[]) => Buffer.from(Float32Array.from(values).buffer);
const storage0to11 = f32(...Array.from({ length: 12 }, (_, i) => i));

describe('readTorchFile: views and refusals', () => {
  it('gathers a transposed view at an offset, and a column slice sharing the storage', async () => {
    // V = storage "0" seen as (3, 4). (V.T)[1:3] is offset 1, size (2, 3), stride (1, 4): [[1, 5, 9], [2, 6, 10]].
    const pickle = Buffer.concat([
      Buffer.from([0x80, 2, 0x7d, 0x28]),
      text('t'), rebuild('0', 12, 1, [2, 3], [1, 4]),
      text('slice'), rebuild('0', 12, 0, [3, 2], [4, 1]), // V[:, :2]
      Buffer.from('u.'),
    ]);
    const path = await handMadeTorchFile('view.pt', pickle, { 0: storage0to11 });
    expect(await readTorchFile(path)).toEqual(new Map([
      ['t', tensor('F32', [2, 3], [1, 5, 9, 2, 6, 10])],
      ['slice', tensor('F32', [3, 2], [0, 1, 4, 5, 8, 9])],
    ]));
  });

  it('refuses a view reaching past its storage, naming the file and storage', async () => {
    const pickle = Buffer.concat([Buffer.from([0x80, 2]), rebuild('0', 12, 2, [3, 4], [4, 1]), Buffer.from('.')]);
    const path = await handMadeTorchFile('oob.pt', pickle, { 0: storage0to11 });
    expect((await refusal(readTorchFile(path))).message).toBe(`${path}: storage 0: a view of size [3, 4], stride [4, 1] at offset 2 reaches element 13 of 12`);
  });

  it('refuses one storage named with two sizes and an expanded view too large to hold', async () => {
    const twice = Buffer.concat([Buffer.from([0x80, 2, 0x28]), rebuild('0', 12, 0, [12], [1]), rebuild('0', 6, 0, [6], [1]), Buffer.from('t.')]);
    const path = await handMadeTorchFile('twice.pt', twice, { 0: storage0to11 });
    expect((await refusal(readTorchFile(path))).message).toBe(`${path}: storage data/0 is named as 12 F32 and as 6 F32 elements`);
    // What saving `x.expand(65536, 65536)` of one element would write: strides (0, 0).
    const expanded = Buffer.concat([Buffer.from([0x80, 2]), rebuild('0', 12, 0, [65536, 65536], [0, 0]), Buffer.from('.')]);
    const huge = await handMadeTorchFile('huge.pt', expanded, { 0: storage0to11 });
    expect((await refusal(readTorchFile(huge))).message).toContain('has more than 2147483647 elements');
  });

  it('refuses a missing storage entry and a storage of the wrong length', async () => {
    const pickle = Buffer.concat([Buffer.from([0x80, 2]), rebuild('0', 12, 0, [12], [1]), Buffer.from('.')]);
    const missing = await handMadeTorchFile('missing.pt', pickle, {});
    expect((await refusal(readTorchFile(missing))).message).toBe(`${missing}: zip entry "archive/data/0" is missing`);
    const short = await handMadeTorchFile('short.pt', pickle, { 0: storage0to11.subarray(0, 44) });
    expect((await refusal(readTorchFile(short))).message).toBe(`${short}: storage data/0 holds 44 bytes; 12 F32 elements need 48`);
  });

  it('refuses a zip without data.pkl, a big-endian file and a file that is not a zip', async () => {
    const noPickle = join(dir, 'none.pt');
    await writeFile(noPickle, Buffer.concat(buildStoredZip(noPickle, [{ name: 'archive/version', data: Buffer.from('3\n') }])));
    expect((await refusal(readTorchFile(noPickle))).message).toContain('is not a torch.save zip (0 "<archive>/data.pkl" entries');
    const bigEndian = join(dir, 'be.pt');
    await writeFile(bigEndian, Buffer.concat(buildStoredZip(bigEndian, [
      { name: 'a/data.pkl', data: Buffer.from([0x80, 2, 0x4e, 0x2e]) },
      { name: 'a/byteorder', data: Buffer.from('big') },
    ])));
    expect((await refusal(readTorchFile(bigEndian))).message).toContain('byteorder is "big"');
    const legacy = join(dir, 'legacy.pt');
    await writeFile(legacy, Buffer.from([0x80, 2, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19])); // pre-1.6 magic number
    expect((await refusal(readTorchFile(legacy))).message).toContain('is not a zip archive');
  });
});
