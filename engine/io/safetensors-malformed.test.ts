/**
 * A corpus of broken safetensors files and checkpoint folders. Each must be rejected with a
 * CheckpointError that names the file and the problem — never a crash, a hang or a huge
 * allocation.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from './checkpoint.ts';
import { CheckpointError, type CheckpointErrorCode } from './checkpoint-error.ts';
import { SafetensorsFile } from './safetensors-reader.ts';
import { f32Tensor, rawSafetensors, withTempDir, writeFixtureCheckpoint } from './testing/fixtures.ts';

const entry = (dtype: unknown, shape: unknown, offsets: unknown) => ({ dtype, shape, data_offsets: offsets });
const bytes = (n: number) => new Uint8Array(n);

interface FileCase {
  readonly name: string;
  readonly content: Buffer;
  readonly code: CheckpointErrorCode;
  readonly message: RegExp;
}

const FILE_CASES: FileCase[] = [
  { name: 'empty file', content: Buffer.alloc(0), code: 'truncated', message: /shorter than the 8-byte header length/ },
  { name: 'file shorter than the length prefix', content: Buffer.from([1, 2, 3]), code: 'truncated', message: /3 bytes/ },
  { name: 'header length past EOF', content: rawSafetensors({}, bytes(0), 500n), code: 'truncated', message: /header length 500 runs past the end/ },
  { name: 'absurd header length', content: rawSafetensors({}, bytes(0), 2n ** 62n), code: 'header-length', message: /exceeds the 100000000-byte cap/ },
  { name: 'header cut short', content: rawSafetensors('{"a": [1, 2'), code: 'header-json', message: /not a JSON object padded with spaces \(it ends with/ },
  { name: 'header is not JSON', content: rawSafetensors('{"a": [1, 2}'), code: 'header-json', message: /not valid JSON/ },
  { name: 'byte-order mark before the header', content: rawSafetensors('\ufeff{}'), code: 'header-json', message: /starts with "\\ufeff\{\}"/ },
  { name: 'header padded with newlines', content: rawSafetensors('{}\n\n'), code: 'header-json', message: /ends with "\{\}\\n\\n"/ },
  {
    name: 'invalid UTF-8 in a tensor name',
    content: rawSafetensors(Buffer.concat([Buffer.from('{"w'), Buffer.from([0xff]), Buffer.from('": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}')]), bytes(4)),
    code: 'encoding',
    message: /header is not valid UTF-8 \(byte 3: 0xff\)/,
  },
  {
    name: 'length prefix shortened into the padding (every tensor would read shifted)',
    content: rawSafetensors(`${JSON.stringify({ w: entry('F32', [2], [0, 8]) })}   `, bytes(8), BigInt(JSON.stringify({ w: entry('F32', [2], [0, 8]) }).length)),
    code: 'offsets',
    message: /the tensors cover 8 bytes but the data area after the header is 11 \(3 bytes unaccounted for/,
  },
  { name: 'trailing bytes after the last tensor', content: rawSafetensors({ w: entry('F32', [2], [0, 8]) }, bytes(12)), code: 'offsets', message: /4 bytes unaccounted for/ },
  { name: 'data area without any tensor', content: rawSafetensors({}, bytes(4)), code: 'offsets', message: /cover 0 bytes but the data area after the header is 4/ },
  {
    name: 'gap between tensors',
    content: rawSafetensors({ a: entry('F32', [1], [0, 4]), b: entry('F32', [1], [8, 12]) }, bytes(12)),
    code: 'offsets',
    message: /tensor "b": starts at byte 8 of the data area, leaving bytes \[4, 8\) unused/,
  },
  { name: 'first tensor not at offset 0', content: rawSafetensors({ a: entry('F32', [1], [4, 8]) }, bytes(8)), code: 'offsets', message: /tensor "a": starts at byte 4/ },
  { name: 'header is a JSON array', content: rawSafetensors('[1, 2, 3]'), code: 'header-json', message: /not a JSON object/ },
  { name: 'entry is not an object', content: rawSafetensors({ w: 5 }), code: 'header-entry', message: /tensor "w": entry is not an object/ },
  { name: 'unknown dtype', content: rawSafetensors({ w: entry('F12', [2], [0, 4]) }, bytes(4)), code: 'dtype', message: /tensor "w": unknown dtype "F12"/ },
  { name: 'an 8-bit float dtype, by name', content: rawSafetensors({ w: entry('F8_E4M3', [4], [0, 4]) }, bytes(4)), code: 'dtype', message: /tensor "w": is stored as F8_E4M3, a safetensors dtype CRANE does not read \(a quantized checkpoint\?/ },
  { name: 'negative dimension', content: rawSafetensors({ w: entry('F32', [2, -1], [0, 8]) }, bytes(8)), code: 'shape', message: /shape \[2,-1\] is not a list of non-negative integers/ },
  { name: 'fractional dimension', content: rawSafetensors({ w: entry('F32', [1.5], [0, 4]) }, bytes(4)), code: 'shape', message: /non-negative integers/ },
  { name: 'offsets past the data area', content: rawSafetensors({ w: entry('F32', [4], [0, 16]) }, bytes(8)), code: 'offsets', message: /\[0, 16\] fall outside the 8-byte data area/ },
  { name: 'offsets reversed', content: rawSafetensors({ w: entry('F32', [1], [8, 4]) }, bytes(8)), code: 'offsets', message: /\[8, 4\]/ },
  { name: 'offsets not integers', content: rawSafetensors({ w: entry('F32', [1], ['0', 4]) }, bytes(4)), code: 'offsets', message: /not two non-negative integers/ },
  { name: 'size does not match shape', content: rawSafetensors({ w: entry('F32', [3], [0, 8]) }, bytes(8)), code: 'shape', message: /needs 12 bytes but data_offsets span 8/ },
  { name: 'overflowing shape', content: rawSafetensors({ w: entry('F32', [2 ** 40, 2 ** 40], [0, 8]) }, bytes(8)), code: 'shape', message: /tensor "w"/ },
  {
    name: 'overlapping tensors',
    content: rawSafetensors({ a: entry('F32', [2], [0, 8]), b: entry('F32', [2], [4, 12]) }, bytes(12)),
    code: 'overlap',
    message: /tensor "b": bytes \[4, 12\) overlap tensor "a"/,
  },
  {
    name: 'duplicate tensor names',
    content: rawSafetensors('{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}', bytes(8)),
    code: 'duplicate',
    message: /tensor "w": appears twice in the header/,
  },
  { name: '__metadata__ with a non-string value', content: rawSafetensors({ __metadata__: { format: 'pt', step: 3 } }), code: 'metadata', message: /__metadata__\["step"\] is number/ },
  { name: '__metadata__ not an object', content: rawSafetensors({ __metadata__: 'pt' }), code: 'metadata', message: /must be an object of strings/ },
  {
    name: 'data cut off after the header',
    content: rawSafetensors({ w: entry('F32', [1024], [0, 4096]) }, bytes(100)),
    code: 'offsets',
    message: /fall outside the 100-byte data area/,
  },
];

describe('malformed safetensors files', () => {
  it.each(FILE_CASES)('rejects: $name', async ({ content, code, message }) => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'broken.safetensors');
      await writeFile(path, content);
      const error = await SafetensorsFile.open(path).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).code).toBe(code);
      expect((error as CheckpointError).message).toContain(path);
      expect((error as CheckpointError).message).toMatch(message);
    });
  });

  it('refuses the absurd header length without allocating it', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'huge.safetensors');
      await writeFile(path, rawSafetensors({}, bytes(0), 90_000_000n));
      const before = process.memoryUsage().arrayBuffers;
      await expect(SafetensorsFile.open(path)).rejects.toThrow(/runs past the end/);
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(10_000_000);
    });
  });

  it('reports a missing file by name', async () => {
    await expect(SafetensorsFile.open('/nonexistent/x.safetensors')).rejects.toThrow('/nonexistent/x.safetensors: file not found');
  });
});

interface FolderCase {
  readonly name: string;
  readonly breakIt: (dir: string) => Promise<void>;
  readonly code: CheckpointErrorCode;
  readonly message: RegExp;
}

const INDEX = 'model.safetensors.index.json';
const editIndex = async (dir: string, edit: (index: { weight_map: Record<string, string> }) => void) => {
  const index = JSON.parse(await readFile(join(dir, INDEX), 'utf8')) as { weight_map: Record<string, string> };
  edit(index);
  await writeFile(join(dir, INDEX), JSON.stringify(index));
};

const FOLDER_CASES: FolderCase[] = [
  { name: 'missing config.json', breakIt: (d) => rm(join(d, 'config.json')), code: 'config', message: /config\.json: missing/ },
  { name: 'config.json not JSON', breakIt: (d) => writeFile(join(d, 'config.json'), '{model_type: qwen3'), code: 'config', message: /config\.json: is not valid JSON/ },
  { name: 'index not JSON', breakIt: (d) => writeFile(join(d, INDEX), 'nope'), code: 'index', message: /index\.json: is not valid JSON/ },
  { name: 'index without weight_map', breakIt: (d) => writeFile(join(d, INDEX), '{"metadata": {}}'), code: 'index', message: /has no weight_map object/ },
  {
    name: 'index naming a missing shard',
    breakIt: (d) => rm(join(d, 'model-00002-of-00002.safetensors')),
    code: 'index',
    message: /tensor "c": names shard model-00002-of-00002\.safetensors, which is missing/,
  },
  {
    name: 'index and shard disagreeing',
    breakIt: (d) => editIndex(d, (i) => {
      i.weight_map['a'] = 'model-00002-of-00002.safetensors';
      i.weight_map['c'] = 'model-00001-of-00002.safetensors';
    }),
    code: 'index',
    message: /tensor "a": maps it to model-00002-of-00002\.safetensors but it is stored in model-00001-of-00002\.safetensors/,
  },
  {
    name: 'index that lost every entry of one shard of its set',
    breakIt: (d) => editIndex(d, (i) => { delete i.weight_map['c']; }),
    code: 'index',
    message: /names no tensor of model-00002-of-00002\.safetensors, a shard of the same set in this folder/,
  },
  {
    name: 'index naming a tensor no shard has',
    breakIt: (d) => editIndex(d, (i) => { i.weight_map['ghost'] = 'model-00001-of-00002.safetensors'; }),
    code: 'index',
    message: /tensor "ghost": maps it to model-00001-of-00002\.safetensors, which does not contain it/,
  },
  {
    name: 'shard tensor missing from the index',
    breakIt: (d) => editIndex(d, (i) => { delete i.weight_map['b']; }),
    code: 'index',
    message: /tensor "b": is stored in model-00001-of-00002\.safetensors but missing from weight_map/,
  },
  {
    name: 'index pointing outside the folder',
    breakIt: (d) => editIndex(d, (i) => { i.weight_map['a'] = '../escape.safetensors'; }),
    code: 'index',
    message: /"\.\.\/escape\.safetensors", not a shard file name/,
  },
  {
    name: 'a stale model.safetensors beside an index of other shards',
    breakIt: (d) => writeFile(join(d, 'model.safetensors'), rawSafetensors({ a: entry('F32', [1], [0, 4]) }, bytes(4))),
    code: 'index',
    message: /index\.json: names other shards, but the folder also has model\.safetensors \(which transformers would load instead\)/,
  },
  {
    name: 'a corrupt shard',
    breakIt: (d) => writeFile(join(d, 'model-00002-of-00002.safetensors'), rawSafetensors({ c: entry('F32', [2], [0, 8]) }, bytes(4))),
    code: 'offsets',
    message: /model-00002-of-00002\.safetensors: tensor "c"/,
  },
  {
    name: 'no weights at all',
    breakIt: async (d) => {
      await rm(join(d, INDEX));
      await rm(join(d, 'model-00001-of-00002.safetensors'));
      await rm(join(d, 'model-00002-of-00002.safetensors'));
    },
    code: 'not-found',
    message: /no model\.safetensors or model\.safetensors\.index\.json/,
  },
];

describe('malformed checkpoint folders', () => {
  const makeSharded = (dir: string) =>
    writeFixtureCheckpoint(dir, [f32Tensor('a', [2, 4], 1), f32Tensor('b', [2, 4], 2), f32Tensor('c', [2, 4], 3)], { maxShardBytes: 64 });

  it.each(FOLDER_CASES)('rejects: $name', async ({ breakIt, code, message }) => {
    await withTempDir(async (root) => {
      const dir = await makeSharded(join(root, 'ckpt'));
      await breakIt(dir);
      const error = await Checkpoint.open(dir).then(
        async (c) => { await c.close(); return undefined; },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).code).toBe(code);
      expect((error as CheckpointError).message).toContain(dir);
      expect((error as CheckpointError).message).toMatch(message);
    });
  });

  it('rejects the same tensor stored in two shards', async () => {
    await withTempDir(async (root) => {
      const dir = join(root, 'dup');
      await mkdir(dir);
      await writeFile(join(dir, 'config.json'), '{}');
      const shard = rawSafetensors({ a: entry('F32', [1], [0, 4]) }, bytes(4));
      await writeFile(join(dir, 'model-00001-of-00002.safetensors'), shard);
      await writeFile(join(dir, 'model-00002-of-00002.safetensors'), shard);
      await writeFile(join(dir, INDEX), JSON.stringify({ weight_map: { a: 'model-00001-of-00002.safetensors', b: 'model-00002-of-00002.safetensors' } }));
      await expect(Checkpoint.open(dir)).rejects.toThrow(/tensor "a": is also stored in model-00001-of-00002\.safetensors/);
    });
  });

  it('reports a missing folder by name', async () => {
    await expect(Checkpoint.open('/nonexistent/ckpt')).rejects.toThrow('/nonexistent/ckpt: checkpoint folder not found');
  });
});
