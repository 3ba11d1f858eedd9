import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../../engine/io/testing/fixtures.ts';
import { addRecent, loadRecentProjects, MAX_RECENT_PROJECTS, RecentProjects, removeRecent } from './recent-projects.ts';

describe('recent projects', () => {
  it('puts the latest first, without duplicates, capped', () => {
    expect(addRecent(['/a', '/b', '/c'], '/b')).toEqual(['/b', '/a', '/c']);
    const many = Array.from({ length: 20 }, (_, i) => `/p${i}`).reduce(addRecent, [] as string[]);
    expect(many).toHaveLength(MAX_RECENT_PROJECTS);
    expect(many[0]).toBe('/p19');
    expect(removeRecent(['/a', '/b'], '/a')).toEqual(['/b']);
  });

  it('persists across instances', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'userData', 'recent-projects.json');
      const first = await RecentProjects.open(file);
      expect(first.projects).toEqual([]);
      await first.add('/x/one');
      await first.add('/x/two');
      await first.add('/x/one');
      expect((await RecentProjects.open(file)).projects).toEqual(['/x/one', '/x/two']);
      await first.remove('/x/two');
      expect(await loadRecentProjects(file)).toEqual(['/x/one']);
      await first.clear();
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, projects: [] });
    });
  });

  it('keeps the writes in call order when they are not awaited', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'recent.json');
      const list = await RecentProjects.open(file);
      void list.add('/1');
      void list.add('/2');
      await list.add('/3');
      expect(await loadRecentProjects(file)).toEqual(['/3', '/2', '/1']);
    });
  });

  it.each([
    ['missing', undefined],
    ['not JSON', '{oops'],
    ['the wrong shape', '{"projects": "x"}'],
    ['another version', '{"version": 2, "projects": ["/a"]}'],
  ])('reads a %s file as an empty list', async (_name, content) => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'recent.json');
      if (content !== undefined) await writeFile(file, content);
      expect(await loadRecentProjects(file)).toEqual([]);
    });
  });

  it('drops relative paths and duplicates from a hand-edited file', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'recent.json');
      await writeFile(file, JSON.stringify({ version: 1, projects: ['/a', 'relative', '/a', '/b'] }));
      expect(await loadRecentProjects(file)).toEqual(['/a', '/b']);
    });
  });
});
