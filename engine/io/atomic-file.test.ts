import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-file.ts';
import { withTempDir } from './testing/fixtures.ts';

describe('writeFileAtomic', () => {
  it('200 concurrent writes of one file all succeed and leave one whole file, no temp files', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'state.json');
      const texts = Array.from({ length: 200 }, (_, i) => JSON.stringify({ writer: i, pad: 'x'.repeat(i * 10) }));
      const results = await Promise.allSettled(texts.map((text) => writeFileAtomic(path, text)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(texts).toContain(await readFile(path, 'utf8'));
      expect(await readdir(dir)).toEqual(['state.json']);
    });
  });

  it('a failed rename removes its temp file and leaves the target as it was', async () => {
    await withTempDir(async (dir) => {
      await mkdir(join(dir, 'target'));
      await writeFile(join(dir, 'target', 'keep'), 'kept');
      await expect(writeFileAtomic(join(dir, 'target'), 'new')).rejects.toThrow();
      expect(await readdir(dir)).toEqual(['target']);
      expect(await readFile(join(dir, 'target', 'keep'), 'utf8')).toBe('kept');
    });
  });
});
