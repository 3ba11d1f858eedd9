/**
 * openPair with the optional Base: the report covers all three checkpoints (a Base lacking a
 * tensor of the pair is an error naming it), the project records the Base and forgets it when the
 * pair is opened again without one; project.json (v4) round-trips it.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCheckpoint } from '../model/testing/tiny-checkpoint.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import { REQUESTS } from '../protocol/methods.ts';
import { newProject, protocolProject } from '../project/project-file.ts';
import { createEngineHandlers } from './engine-handlers.ts';

const ctx: HandlerContext = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
let root: string;
const dirs = { instruct: '', thinking: '', base: '', otherBase: '' };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-open-pair-'));
  for (const [key, seed] of [['instruct', 1], ['thinking', 2], ['base', 3]] as const) {
    dirs[key] = join(root, key);
    await mkdir(dirs[key]);
    await writeTinyCheckpoint({ seed, layers: 1 }, dirs[key]);
  }
  // Another MLP width: the config differs and every MLP tensor has another shape.
  dirs.otherBase = join(root, 'other-base');
  await mkdir(dirs.otherBase);
  await writeTinyCheckpoint({ seed: 4, layers: 1, intermediate: 12 }, dirs.otherBase);
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe('openPair with a Base checkpoint', () => {
  it('reports on all three, and the project keeps the Base until the pair is opened without one', async () => {
    const handlers = createEngineHandlers();
    const projectDir = join(root, 'project');
    await handlers.saveProject({ projectDir, project: protocolProject(newProject()) }, ctx);
    const summary = REQUESTS.openPair.result.parse(await handlers.openPair({ ...dirs, base: dirs.base }, ctx));
    expect(summary.base?.dir).toBe(dirs.base);
    expect(summary.report.compatible).toBe(true);
    expect(summary.report.base).toMatchObject({ dir: dirs.base, missingTensors: [], shapeMismatches: [] });
    expect(summary.report.base?.matchedTensors).toBe(summary.report.sharedTensors);
    expect((await handlers.getProjectState({}, ctx))?.project.base).toBe(dirs.base);
    const stored = JSON.parse(await readFile(join(projectDir, 'project.json'), 'utf8')) as { formatVersion: number; base: string };
    expect([stored.formatVersion, stored.base]).toEqual([4, dirs.base]);
    expect((await createEngineHandlers().openProject({ projectDir }, ctx)).project.base).toBe(dirs.base);

    const without = REQUESTS.openPair.result.parse(await handlers.openPair({ instruct: dirs.instruct, thinking: dirs.thinking }, ctx));
    expect(without.base).toBeUndefined();
    expect(without.report.base).toBeUndefined();
    expect((await handlers.getProjectState({}, ctx))?.project.base).toBeNull();
  });

  it('refuses a Base of another shape in the report, naming the config field and the tensors', async () => {
    const summary = await createEngineHandlers().openPair({ instruct: dirs.instruct, thinking: dirs.thinking, base: dirs.otherBase }, ctx);
    expect(summary.report.compatible).toBe(false);
    const messages = summary.report.findings.filter((f) => f.severity === 'error').map((f) => f.message).join('\n');
    expect(messages).toContain('"intermediate_size" differs');
    expect(messages).toContain('model.layers.0.mlp.gate_proj.weight');
  });
});
