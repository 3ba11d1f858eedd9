/**
 * listDirectories on real folders: sub-folders of the data folder and of the open project's
 * folders, sorted, hidden ones and files left out; anything outside those roots is refused,
 * including through a symlink that leads out of a root.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandlerContext } from '../protocol/handlers.ts';
import { REQUESTS } from '../protocol/methods.ts';
import { newProject, protocolProject } from '../project/project-file.ts';
import { createEngineHandlers } from './engine-handlers.ts';
import { EngineSession } from './engine-session.ts';

const ctx: HandlerContext = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
let root: string;
const at = (...parts: string[]) => join(root, ...parts);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-list-dirs-'));
  for (const dir of ['data/projects/demo', 'data/projects/qwen', 'data/.cache', 'models/instruct/sub', 'models/thinking', 'elsewhere/secret']) await mkdir(at(dir), { recursive: true });
  await writeFile(at('data', 'notes.txt'), 'not a folder');
  await symlink(at('elsewhere'), at('data', 'link-out'));
});

afterAll(() => rm(root, { recursive: true, force: true }));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(() => 'ok', (error: { code?: string }) => error.code ?? 'thrown');
}

describe('listDirectories', () => {
  it('lists the folders inside the data folder, sorted, without hidden folders, files or links', async () => {
    const handlers = createEngineHandlers({ dataDir: at('data') });
    const listing = REQUESTS.listDirectories.result.parse(await handlers.listDirectories({ dir: at('data') }, ctx));
    expect(listing).toEqual({ dir: at('data'), directories: ['projects'], truncated: false });
    expect((await handlers.listDirectories({ dir: at('data', 'projects') }, ctx)).directories).toEqual(['demo', 'qwen']);
  });

  it('refuses folders outside the roots, through a link too, and paths that are not normalised folders', async () => {
    const handlers = createEngineHandlers({ dataDir: at('data') });
    expect(await codeOf(handlers.listDirectories({ dir: root }, ctx))).toBe('invalid-path');
    expect(await codeOf(handlers.listDirectories({ dir: at('elsewhere') }, ctx))).toBe('invalid-path');
    expect(await codeOf(handlers.listDirectories({ dir: at('data', 'link-out') }, ctx))).toBe('invalid-path');
    await expect(handlers.listDirectories({ dir: at('models') }, ctx)).rejects.toThrow('folder names are completed only inside the data folder and the folders of the open project');
    expect(await codeOf(handlers.listDirectories({ dir: `${at('data', 'projects')}/..` }, ctx))).toBe('invalid-path');
    expect(await codeOf(handlers.listDirectories({ dir: at('data', 'notes.txt') }, ctx))).toBe('invalid-path');
    expect(await codeOf(handlers.listDirectories({ dir: at('data', 'missing') }, ctx))).toBe('not-found');
  });

  it('lists inside the open project’s folder and the checkpoint folders it names', async () => {
    const session = new EngineSession();
    const handlers = createEngineHandlers({ session });
    const projectDir = at('elsewhere', 'project');
    await handlers.saveProject({ projectDir, project: { ...protocolProject(newProject()), instruct: at('models', 'instruct'), thinking: at('models', 'thinking') } }, ctx);
    expect((await handlers.listDirectories({ dir: at('models', 'instruct') }, ctx)).directories).toEqual(['sub']);
    expect((await handlers.listDirectories({ dir: projectDir }, ctx)).directories).toEqual([]);
    // Their parents and siblings are not roots.
    expect(await codeOf(handlers.listDirectories({ dir: at('models') }, ctx))).toBe('invalid-path');
    expect(await codeOf(handlers.listDirectories({ dir: at('elsewhere', 'secret') }, ctx))).toBe('invalid-path');
  });
});
