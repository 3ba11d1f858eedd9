/**
 * Input files that are not what their names say: folders, FIFOs, invalid UTF-8. Each must be a
 * CheckpointError naming the file — never a stack trace, and never a hang (a FIFO opened for
 * reading blocks until a writer appears; the tests would time out).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from './checkpoint.ts';
import { CheckpointError } from './checkpoint-error.ts';
import { decodeUtf8, readJsonObject } from './input-file.ts';
import { SafetensorsFile } from './safetensors-reader.ts';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from './testing/fixtures.ts';

const makeFifo = (path: string) => execFileSync('mkfifo', [path]);
const posix = process.platform !== 'win32';

async function openError(dir: string): Promise<unknown> {
  return Checkpoint.open(dir).then(async (c) => { await c.close(); return undefined; }, (e: unknown) => e);
}

async function withCheckpoint(body: (dir: string) => Promise<void>): Promise<void> {
  await withTempDir(async (root) => {
    const dir = await writeFixtureCheckpoint(join(root, 'ckpt'), [f32Tensor('a', [2, 2], 1)], { sideFiles: { 'tokenizer.json': '{}' } });
    await body(dir);
  });
}

describe('input files of the wrong type', () => {
  const replacements: { name: string; file: string; make: (path: string) => Promise<unknown>; detail: RegExp; fifo?: boolean }[] = [
    { name: 'a folder as the shard', file: 'model.safetensors', make: (p) => mkdir(p), detail: /is a folder, not a regular file/ },
    { name: 'a FIFO as the shard', file: 'model.safetensors', make: async (p) => makeFifo(p), detail: /is a FIFO \(named pipe\), not a regular file/, fifo: true },
    { name: 'a folder as config.json', file: 'config.json', make: (p) => mkdir(p), detail: /is a folder, not a regular file/ },
    { name: 'a FIFO as config.json', file: 'config.json', make: async (p) => makeFifo(p), detail: /is a FIFO/, fifo: true },
    { name: 'a FIFO as tokenizer.json', file: 'tokenizer.json', make: async (p) => makeFifo(p), detail: /is not a regular file/, fifo: true },
    { name: 'a folder as tokenizer.json', file: 'tokenizer.json', make: (p) => mkdir(p), detail: /is not a regular file/ },
  ];

  // FIFOs exist only on POSIX systems.
  it.each(replacements.filter((r) => posix || r.fifo !== true))('refuses $name, naming it', async ({ file, make, detail }) => {
    await withCheckpoint(async (dir) => {
      await rm(join(dir, file));
      await make(join(dir, file));
      const error = await openError(dir);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).code).toBe('not-a-file');
      expect((error as CheckpointError).message).toMatch(new RegExp(`^${join(dir, file)}: `));
      expect((error as CheckpointError).message).toMatch(detail);
    });
  });

  it('follows a symlinked shard to a regular file (the Hugging Face cache layout)', async () => {
    await withCheckpoint(async (dir) => {
      const blob = join(dir, '..', 'blob');
      await rename(join(dir, 'model.safetensors'), blob);
      await symlink(blob, join(dir, 'model.safetensors'));
      const checkpoint = await Checkpoint.open(dir);
      try {
        expect(await checkpoint.readFloat32('a')).toHaveLength(4);
      } finally {
        await checkpoint.close();
      }
    });
  });

  it('refuses a symlink to a folder as a shard', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'elsewhere'));
      await symlink(join(root, 'elsewhere'), join(root, 'x.safetensors'));
      await expect(SafetensorsFile.open(join(root, 'x.safetensors'))).rejects.toThrow(`${join(root, 'x.safetensors')}: is a folder, not a regular file`);
    });
  });
});

describe('strict UTF-8', () => {
  it('names the lead byte of the first invalid sequence, also past a multi-byte character and at a cut end', () => {
    const text = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    expect(decodeUtf8('f', text('héllo'), 'file')).toBe('héllo');
    expect(() => decodeUtf8('f', text('hé', [0xc0, 0xaf], 'x'), 'file')).toThrow('f: file is not valid UTF-8 (byte 3: 0xc0)');
    expect(() => decodeUtf8('f', text('abc', [0xe2, 0x82]), 'header')).toThrow('f: header is not valid UTF-8 (byte 3: 0xe2)');
    const long = Buffer.concat([Buffer.alloc(200_000, 0x61), Buffer.from([0xff])]);
    expect(() => decodeUtf8('f', long, 'file')).toThrow('(byte 200000: 0xff)');
  });

  it('refuses invalid UTF-8 in config.json instead of replacing it', async () => {
    await withCheckpoint(async (dir) => {
      await writeFile(join(dir, 'config.json'), Buffer.concat([Buffer.from('{"model_type": "qw'), Buffer.from([0xff]), Buffer.from('en3"}')]));
      await expect(Checkpoint.open(dir)).rejects.toMatchObject({ code: 'encoding', message: `${join(dir, 'config.json')}: file is not valid UTF-8 (byte 18: 0xff)` });
    });
  });

  it('reads JSON objects only', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.json'), '[1]');
      await expect(readJsonObject(join(root, 'a.json'), 'config')).rejects.toThrow(`${join(root, 'a.json')}: is not a JSON object`);
    });
  });

  it('names a byte-order mark at the start of a JSON file (JSON.parse quotes it as an invisible character)', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'config.json'), '\uFEFF{"model_type": "qwen3"}');
      await expect(readJsonObject(join(root, 'config.json'), 'config')).rejects.toThrow(`${join(root, 'config.json')}: is not valid JSON (it starts with a UTF-8 byte-order mark, which JSON does not allow; save it without one)`);
    });
  });
});
