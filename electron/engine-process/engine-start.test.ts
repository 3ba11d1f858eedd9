/**
 * The engine process's start-up, in plain Node: where main says the data folder is, and the
 * demo project prepared and opened there before any window is served (as `crane serve` does).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../engine/project/data-dir.ts';
import { DEMO_PROJECT_NAME } from '../../engine/project/demo-project.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import type { HandlerContext } from '../../engine/protocol/handlers.ts';
import { engineProcessArgs } from '../common/engine-process-args.ts';
import { dataDirFromArgs, startEngineHandlers } from './engine-start.ts';

const ctx: HandlerContext = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'crane-engine-start-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('engine process start-up', () => {
  it('reads the data folder main passed from its argv, else the headless default', () => {
    const argv = ['/usr/lib/electron', '/app/engine-process.mjs', ...engineProcessArgs('/home/u/.config/CRANE Studio')];
    expect(dataDirFromArgs(argv, {})).toBe('/home/u/.config/CRANE Studio');
    // Without the flag (or with a flag where the value should be), the headless default.
    expect(dataDirFromArgs(['node', 'x.mjs'], { CRANE_DATA_DIR: '/tmp/d' })).toBe(defaultDataDir({ CRANE_DATA_DIR: '/tmp/d' }));
    expect(dataDirFromArgs(['node', '--data-dir', '--inspect'], { CRANE_DATA_DIR: '/tmp/d' })).toBe('/tmp/d');
    expect(dataDirFromArgs(['node', '--data-dir', ''], { CRANE_DATA_DIR: '/tmp/d' })).toBe('/tmp/d');
  });

  it('opens the project prepared in the data folder before serving, so the window starts on it', async () => {
    const project = join(scratch, 'projects', 'demo');
    let askedFor: string | undefined;
    const { handlers, project: opened } = await startEngineHandlers(scratch, () => undefined, async (dir) => {
      askedFor = dir;
      await mkdir(project, { recursive: true });
      return project;
    });
    expect(askedFor).toBe(scratch);
    expect(opened).toBe(project);
    expect((await handlers.getProjectState({}, ctx))?.projectDir).toBe(project);
  });

  it('still serves (with no project) when the demo is not built or cannot be prepared', async () => {
    const none = await startEngineHandlers(scratch, () => undefined, async () => null);
    expect(none.project).toBeNull();
    expect(await none.handlers.getProjectState({}, ctx)).toBeNull();

    const lines: string[] = [];
    const blocked = join(scratch, 'a-file');
    await writeFile(blocked, 'not a folder');
    const failed = await startEngineHandlers(blocked, (line) => lines.push(line));
    expect(failed.project).toBeNull();
    expect(await failed.handlers.getProjectState({}, ctx)).toBeNull();
    expect((await failed.handlers.ping({}, ctx)).protocolVersion).toBe(1);
    // Only when the demo pair exists does preparing it touch the folder (and fail on a file).
    if (existsSync(join(demoPaths().instruct, 'config.json'))) expect(lines.join('\n')).toContain(blocked);
  });

  it.runIf(existsSync(join(demoPaths().instruct, 'config.json')))('by default prepares and opens the demo project in the data folder', async () => {
    const { handlers, project } = await startEngineHandlers(scratch, () => undefined);
    expect(project).toBe(join(scratch, 'projects', DEMO_PROJECT_NAME));
    const state = await handlers.getProjectState({}, ctx);
    expect(state?.project.instruct).toBe(demoPaths().instruct);
  });
});
