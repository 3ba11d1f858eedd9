/**
 * getPassMetrics through the handlers, its answer checked against the protocol schema as the host
 * checks it: a looped pair's per-pass metrics after analyze, refused before, and out of date
 * when the analysis changed under it; null for a dense pair.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASS_METRICS_FILE, readPassMetrics } from '../analysis/pass-metrics.ts';
import { pipelinePaths } from '../pipeline/pipeline-folder.ts';
import { STAGE_MARKER } from '../pipeline/stage-store.ts';
import { writeTinyProject } from '../pipeline/testing/tiny-project.ts';
import { projectPaths } from '../project/project-layout.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harness, harnessOn, type Harness } from './testing/handler-harness.ts';

let root: string;

beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-pass-handler-'));
});

afterAll(() => rm(root, { recursive: true, force: true }));

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

async function analysed(h: Harness): Promise<void> {
  await call(h, 'openProject', { projectDir: h.projectDir });
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
  await call(h, 'analyze', { projectDir: h.projectDir, settings: h.settings.analysis });
}

describe('getPassMetrics', () => {
  it('serves a looped pair\'s per-pass metrics as the pipeline wrote them, and refuses an out-of-date file', async () => {
    const looped = join(root, 'looped');
    const h = await harnessOn(looped, await writeTinyProject(looped, { model: { loop: { numLoops: 2 } } }));
    await call(h, 'openProject', { projectDir: h.projectDir });
    expect(await codeOf(call(h, 'getPassMetrics', {}))).toBe('not-found');
    await analysed(h);
    const served = await call(h, 'getPassMetrics', {});
    const passes = pipelinePaths(projectPaths(h.projectDir).analysis).passes;
    const stored = await readPassMetrics(join(passes, PASS_METRICS_FILE));
    expect(served?.blocks.map(({ column: _column, ...block }) => block)).toEqual(stored?.blocks);
    expect({ ...served, blocks: [] }).toEqual({ ...stored, blocks: [] });
    expect(served?.passes).toBe(2);
    expect(new Set(served?.blocks.map((b) => b.pass))).toEqual(new Set([0, 1]));
    // each block sits in the gate heatmap's column at its granularity, as getGateMetrics names them
    for (const granularity of ['coarse', 'fine'] as const) {
      const { groups } = await call(h, 'getGateMetrics', { granularity });
      const blocks = served?.blocks.filter((b) => (b.block === null) === (granularity === 'coarse')) ?? [];
      expect(new Set(blocks.map((b) => b.column))).toEqual(new Set(groups));
    }
    expect(served?.blocks.find((b) => b.group === 'ffn' && b.block === 'down')?.column).toBe('down');
    await writeFile(join(passes, STAGE_MARKER), JSON.stringify({ result: {}, version: 0 }));
    expect(await codeOf(call(h, 'getPassMetrics', {}))).toBe('not-found');
  }, 300_000);

  it('answers null for a dense pair', async () => {
    const h = await harness(join(root, 'dense'));
    await analysed(h);
    expect(await call(h, 'getPassMetrics', {})).toBeNull();
  }, 300_000);
});
