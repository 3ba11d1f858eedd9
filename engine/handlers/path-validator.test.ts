import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { validatePath } from './path-validator.ts';

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

describe('validatePath', () => {
  it('accepts an existing absolute normalised path of the expected kind', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'a.jsonl'), '');
      expect(await validatePath(dir, 'directory')).toBe(dir);
      expect(await validatePath(join(dir, 'a.jsonl'), 'file')).toBe(join(dir, 'a.jsonl'));
    });
  });

  it.each([
    ['relative', 'models/instruct', 'invalid-path'],
    ['dot segments', '/tmp/../etc', 'invalid-path'],
    ['a current-dir segment', '/tmp/./x', 'invalid-path'],
    ['doubled separators', '/tmp//x', 'invalid-path'],
    ['a trailing separator', '/tmp/', 'invalid-path'],
    ['missing', '/definitely/not/here', 'not-found'],
  ])('refuses %s', async (_what, path, code) => {
    expect(await codeOf(validatePath(path, 'directory'))).toBe(code);
  });

  it('refuses the wrong kind of entry', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'a.jsonl'), '');
      expect(await codeOf(validatePath(join(dir, 'a.jsonl'), 'directory'))).toBe('invalid-path');
      expect(await codeOf(validatePath(dir, 'file'))).toBe('invalid-path');
      expect(await codeOf(validatePath(join(dir, 'a.jsonl', 'x'), 'file'))).toBe('not-found');
    });
  });
});
