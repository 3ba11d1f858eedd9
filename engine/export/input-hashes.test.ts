import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { hashFiles } from './input-hashes.ts';

const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

describe('hashFiles', () => {
  it('gives each file its SHA-256 (hashed on a worker thread) and reports bytes file by file', () => withTempDir(async (dir) => {
    await writeFile(join(dir, 'a.json'), '{"a":1}');
    await writeFile(join(dir, 'b.bin'), Buffer.alloc(5 * 1024 ** 2 + 3, 7));
    await writeFile(join(dir, 'empty'), '');
    const seen: number[] = [];
    const hashes = await hashFiles(dir, ['a.json', 'b.bin', 'empty'], { onProgress: (p) => seen.push(p.bytesDone) });
    expect(hashes).toEqual({ 'a.json': await sha256(join(dir, 'a.json')), 'b.bin': await sha256(join(dir, 'b.bin')), empty: await sha256(join(dir, 'empty')) });
    expect(seen).toEqual([7, 7 + 5 * 1024 ** 2 + 3, 7 + 5 * 1024 ** 2 + 3]);
  }));

  it('stops when cancelled between files, naming the file it was on', () => withTempDir(async (dir) => {
    await writeFile(join(dir, 'a'), 'x');
    await writeFile(join(dir, 'b'), Buffer.alloc(1024 ** 2));
    const controller = new AbortController();
    const run = hashFiles(dir, ['a', 'b'], { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(run).rejects.toThrow(`${join(dir, 'b')}: hashing cancelled`);
  }));

  it('refuses a missing file and a folder by name before hashing', () => withTempDir(async (dir) => {
    await expect(hashFiles(dir, ['nope'])).rejects.toThrow(`${join(dir, 'nope')}: input file not found`);
    await expect(hashFiles(join(dir, '..'), [dir.split('/').at(-1) as string])).rejects.toThrow('is not a regular file');
  }));
});
