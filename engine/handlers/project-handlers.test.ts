import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import { newProject, protocolProject } from '../project/project-file.ts';
import { createEngineHandlers } from './engine-handlers.ts';

const ctx: HandlerContext = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
const project = (alpha: number) => ({ ...protocolProject(newProject()), settings: { ...newProject().settings, alpha } });
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

describe('openProject and saveProject choose their folders', () => {
  it('openProject starts a project only in an empty folder, and refuses any other folder untouched', async () => {
    await withTempDir(async (root) => {
      const handlers = createEngineHandlers();
      await mkdir(join(root, 'empty'));
      expect((await handlers.openProject({ projectDir: join(root, 'empty') }, ctx)).projectDir).toBe(join(root, 'empty'));
      await mkdir(join(root, 'checkpoint'));
      await writeFile(join(root, 'checkpoint', 'config.json'), '{}');
      expect(await codeOf(handlers.openProject({ projectDir: join(root, 'checkpoint') }, ctx))).toBe('invalid-path');
      expect(await readdir(join(root, 'checkpoint'))).toEqual(['config.json']);
    });
  });

  it.runIf(process.platform === 'linux')('saveProject under /proc answers invalid-path instead of spinning', async () => {
    expect(await codeOf(createEngineHandlers().saveProject({ projectDir: '/proc/crane-x', project: project(0.5) }, ctx))).toBe('invalid-path');
  });

  it('200 concurrent saves of one project all answer, and the last one is the project', async () => {
    await withTempDir(async (root) => {
      const handlers = createEngineHandlers();
      const dir = join(root, 'project');
      const alphas = Array.from({ length: 200 }, (_, i) => (i + 1) / 200);
      const answers = await Promise.allSettled(alphas.map((alpha) => handlers.saveProject({ projectDir: dir, project: project(alpha) }, ctx)));
      expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
      expect((await handlers.getProjectState({}, ctx))?.project.settings.alpha).toBe(1);
      expect((await createEngineHandlers().openProject({ projectDir: dir }, ctx)).project.settings.alpha).toBe(1);
    });
  });
});
