import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CheckpointError } from './checkpoint-error.ts';
import { parseJsonText, readJsonFile } from './json-file.ts';
import { withTempDir } from './testing/fixtures.ts';

const progress = z.strictObject({ batchesDone: z.int().nonnegative() });

async function errorOf(work: Promise<unknown>): Promise<CheckpointError> {
  const error: unknown = await work.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof CheckpointError)) throw new Error(`expected a CheckpointError, got ${String(error)}`);
  return error;
}

describe('readJsonFile', () => {
  it('returns the checked value, or undefined where there is no file', () => withTempDir(async (dir) => {
    const file = join(dir, 'progress.json');
    expect(await readJsonFile(file, progress, 'a progress file')).toBeUndefined();
    await writeFile(file, '{"batchesDone": 3}');
    expect(await readJsonFile(file, progress, 'a progress file')).toEqual({ batchesDone: 3 });
  }));

  it('refuses text that is not JSON, naming the file', () => withTempDir(async (dir) => {
    const file = join(dir, 'progress.json');
    await writeFile(file, '{"batchesDone": 3');
    const error = await errorOf(readJsonFile(file, progress, 'a progress file'));
    expect(error.code).toBe('metadata');
    expect(error.message).toMatch(new RegExp(`^${file}: is not a progress file: not valid JSON`));
  }));

  it('refuses JSON of another shape, naming the file and the field', () => withTempDir(async (dir) => {
    const file = join(dir, 'progress.json');
    await writeFile(file, '{"batchesDone": -1}');
    const error = await errorOf(readJsonFile(file, progress, 'a progress file'));
    expect(error.message).toContain(`${file}: is not a progress file`);
    expect(error.message).toContain('batchesDone');
  }));

  it('refuses a folder where the file should be, naming it', () => withTempDir(async (dir) => {
    const folder = join(dir, 'progress.json');
    await mkdir(folder);
    const error = await errorOf(readJsonFile(folder, progress, 'a progress file'));
    expect(error.code).toBe('not-a-file');
    expect(error.file).toBe(folder);
  }));

  it('refuses a FIFO where the file should be instead of blocking on it', () => withTempDir(async (dir) => {
    const fifo = join(dir, 'progress.json');
    execFileSync('mkfifo', [fifo]);
    const error = await errorOf(readJsonFile(fifo, progress, 'a progress file'));
    expect(error.code).toBe('not-a-file');
    expect(error.message).toContain('FIFO');
  }));
});

describe('parseJsonText', () => {
  it('names the place it was given, e.g. a JSONL line', () => {
    expect(() => parseJsonText('cache.jsonl:7', '[1]', progress, 'a cache line')).toThrow(/^cache\.jsonl:7: is not a cache line/);
  });
});
