import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { markStageDone, STAGE_MARKER, stageStatus, writeFileAtomic } from './stage-store.ts';

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

describe('stageStatus', () => {
  const key = { inputs: { reasoning: 'aa11' }, settings: { maxRank: 8 } };

  it('is missing without a marker, cached with the same key, stale naming what changed', () => withTempDir(async (dir) => {
    expect(await stageStatus(dir, key)).toEqual({ state: 'missing' });
    await markStageDone(dir, key);
    expect(await stageStatus(dir, key)).toEqual({ state: 'cached' });
    expect(await stageStatus(dir, { ...key, settings: { maxRank: 16 } })).toEqual({ state: 'stale', reasons: ['settings changed'] });
  }));

  it.each([
    ['not JSON', '{"inputs":', 'not valid JSON'],
    ['not a JSON object', '["inputs"]', 'is not a stage marker'],
  ])('is stale, naming the marker, when it is %s', (_what, text, reason) => withTempDir(async (dir) => {
    await writeFile(join(dir, STAGE_MARKER), text);
    const status = await stageStatus(dir, key);
    expect(status.state).toBe('stale');
    expect(status.state === 'stale' ? status.reasons.join('\n') : '').toContain(`${join(dir, STAGE_MARKER)}: `);
    expect(status.state === 'stale' ? status.reasons.join('\n') : '').toContain(reason);
  }));
});
