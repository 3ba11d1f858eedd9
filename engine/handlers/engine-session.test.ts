import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { readProjectFile } from '../project/project-file.ts';
import { EngineSession } from './engine-session.ts';

describe('EngineSession writes one at a time', () => {
  it('keeps every one of 100 concurrent read-modify-write updates, on disk too', async () => {
    await withTempDir(async (root) => {
      const session = new EngineSession();
      const dir = join(root, 'project');
      await session.save(dir, (stored) => stored);
      const record = (i: number) => ({ outDir: `/out/${i}`, method: { method: 'task-arithmetic' }, dtype: 'bf16', totalBytes: i, files: [], finishedAt: 'now' });
      await Promise.all(Array.from({ length: 100 }, (_, i) => session.update((p) => ({ ...p, exports: [...p.exports, record(i)] }))));
      expect(session.requireProject().project.exports.map((e) => e.totalBytes)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect((await readProjectFile(dir))?.exports).toHaveLength(100);
    });
  });

  it('a failed save does not block the ones queued after it', async () => {
    await withTempDir(async (root) => {
      const session = new EngineSession();
      const failing = session.save(() => Promise.reject(new Error('bad folder')), (stored) => stored);
      const next = session.save(join(root, 'project'), (stored) => stored);
      await expect(failing).rejects.toThrow('bad folder');
      expect((await next).dir).toBe(join(root, 'project'));
    });
  });
});
