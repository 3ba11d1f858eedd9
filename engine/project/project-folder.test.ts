import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { newProject, readProjectFile } from './project-file.ts';
import { makeFolder, saveProjectFolder } from './project-folder.ts';
import { PROJECT_FILE } from './project-layout.ts';

const withAlpha = (alpha: number) => ({ ...newProject(), settings: { ...newProject().settings, alpha } });

describe('makeFolder', () => {
  it('creates missing parents one level at a time, owner-only', async () => {
    await withTempDir(async (root) => {
      const dir = join(root, 'a', 'b', 'c');
      await makeFolder(dir);
      await makeFolder(dir);
      for (const path of [join(root, 'a'), join(root, 'a', 'b'), dir]) expect((await stat(path)).mode & 0o777).toBe(0o700);
    });
  });

  it('refuses a path under a file, naming it', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'file'), 'x');
      await expect(makeFolder(join(root, 'file', 'p'))).rejects.toMatchObject({ code: 'invalid-path', message: expect.stringContaining(join(root, 'file')) });
    });
  });

  // Node's recursive mkdir never returns here; a regression shows as this test's timeout.
  it.runIf(process.platform === 'linux')('refuses a folder the kernel will not create (/proc/x) instead of spinning', async () => {
    await expect(makeFolder('/proc/crane-x/project')).rejects.toMatchObject({ code: 'invalid-path', message: expect.stringMatching(/^\/proc\/crane-x: cannot be created \(ENOENT\)/) });
  });
});

describe('saveProjectFolder', () => {
  it('writes into a new, an empty or a project folder', async () => {
    await withTempDir(async (root) => {
      await saveProjectFolder(join(root, 'new'), withAlpha(0.1));
      await mkdir(join(root, 'empty'));
      await saveProjectFolder(join(root, 'empty'), withAlpha(0.2));
      await saveProjectFolder(join(root, 'empty'), withAlpha(0.3));
      expect((await readProjectFile(join(root, 'new')))?.settings.alpha).toBe(0.1);
      expect((await readProjectFile(join(root, 'empty')))?.settings.alpha).toBe(0.3);
    });
  });

  it('refuses a folder holding something else, and leaves it as it was', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'config.json'), '{}');
      await expect(saveProjectFolder(root, newProject())).rejects.toMatchObject({ code: 'invalid-path', message: expect.stringContaining('neither empty nor a CRANE project folder') });
      expect(await readdir(root)).toEqual(['config.json']);
    });
  });

  it('refuses to overwrite a project.json that is not a CRANE project', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, PROJECT_FILE), '{"name": "someone else\'s"}');
      await expect(saveProjectFolder(root, newProject())).rejects.toThrow(/project\.json: is not a CRANE project file/);
      expect(await readFile(join(root, PROJECT_FILE), 'utf8')).toBe('{"name": "someone else\'s"}');
    });
  });

  it('200 concurrent saves of one folder all succeed, the last one asked for is on disk, no temp file is left', async () => {
    await withTempDir(async (root) => {
      const dir = join(root, 'project');
      const alphas = Array.from({ length: 200 }, (_, i) => (i + 1) / 200);
      const results = await Promise.allSettled(alphas.map((alpha) => saveProjectFolder(dir, withAlpha(alpha))));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect((await readProjectFile(dir))?.settings.alpha).toBe(1);
      expect(await readdir(dir)).toEqual([PROJECT_FILE]);
    });
  });
});
