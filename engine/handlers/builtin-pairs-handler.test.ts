/**
 * listBuiltinPairs on real folders: a built pair (tiny checkpoints and a base) is offered as a
 * project prepared in the data folder, which openProject opens with the pair, its base and its
 * calibration sets; an unbuilt pair is left out, and a host without a data folder offers none.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoPaths } from '../demo/demo-layout.ts';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import type { BuiltinPair } from '../project/builtin-pairs.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import { REQUESTS } from '../protocol/methods.ts';
import { builtinPairsHandler } from './builtin-pairs-handler.ts';
import { createEngineHandlers } from './engine-handlers.ts';

const ctx: HandlerContext = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
let root: string;
let pairs: BuiltinPair[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-builtin-pairs-'));
  const built = demoPaths(join(root, 'built'));
  for (const [dir, seed] of [[built.base, 1], [built.instruct, 2], [built.thinking, 3]] as const) {
    await mkdir(dir, { recursive: true });
    await writeTinyCheckpoint({ seed, layers: 1 }, dir);
  }
  pairs = [
    { name: 'unbuilt', label: 'Not trained yet', paths: demoPaths(join(root, 'unbuilt')) },
    { name: 'built', label: 'A trained pair', paths: built },
  ];
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe('listBuiltinPairs', () => {
  it('offers each built pair as a project in the data folder that opens with its pair, base and calibration sets', async () => {
    const dataDir = join(root, 'data');
    const listed = REQUESTS.listBuiltinPairs.result.parse(await builtinPairsHandler(dataDir, pairs)());
    expect(listed).toEqual([{ name: 'built', label: 'A trained pair', projectDir: join(dataDir, 'projects', 'built') }]);
    const paths = pairs[1]?.paths as BuiltinPair['paths'];
    const opened = await createEngineHandlers().openProject({ projectDir: listed[0]?.projectDir as string }, ctx);
    expect(opened.project).toMatchObject({ instruct: paths.instruct, thinking: paths.thinking, base: paths.base });
    expect(opened.project.analysis?.calibration).toEqual({ reasoning: paths.reasoning, agent: paths.toolUse, format: paths.format });
    // Listing again keeps the prepared project (and whatever was saved in it).
    expect(await builtinPairsHandler(dataDir, pairs)()).toEqual(listed);
  });

  it('offers none on a host without a data folder', async () => {
    expect(await builtinPairsHandler(null, pairs)()).toEqual([]);
    expect(await createEngineHandlers().listBuiltinPairs({}, ctx)).toEqual([]);
  });
});
