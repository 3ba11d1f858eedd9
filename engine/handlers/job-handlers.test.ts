/**
 * The long handlers on a tiny random pair: analyze cancelled after its first stage resumes with
 * that stage cached; export writes a checkpoint that opens, with its recipe, progress and a
 * history entry, and a cancelled export leaves nothing; verify measures, predicts and dates each
 * run, and keeps CRANE points.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { DEFAULT_CRANE_SETTINGS } from '../protocol/settings-defaults.ts';
import { readProjectFile } from '../project/project-file.ts';
import { initBackend } from '../tensor/backend.ts';
import { call, harness, recordingContext, type Harness } from './testing/handler-harness.ts';

let h: Harness;
const crane = { method: 'crane' as const, settings: DEFAULT_CRANE_SETTINGS };
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

beforeAll(async () => {
  await initBackend('wasm');
  h = await harness(await mkdtemp(join(tmpdir(), 'crane-jobs-')));
  // No project open: opening the pair gives it its own project in the data folder.
  await call(h, 'openPair', { instruct: h.instruct, thinking: h.thinking });
}, 60_000);

afterAll(async () => {
  if (h !== undefined) await rm(h.root, { recursive: true, force: true });
});

describe('long handlers', () => {
  it('a pair opened with no project gets a project in the data folder', async () => {
    const state = await call(h, 'getProjectState', {});
    expect(state?.projectDir.startsWith(join(h.dataDir, 'projects', 'pair-'))).toBe(true);
    expect(state?.project).toMatchObject({ instruct: h.instruct, thinking: h.thinking });
  });

  it('analyze cancelled after its first stage ends cancelled, and the rerun reuses that stage', async () => {
    const projectDir = (await call(h, 'getProjectState', {}))?.projectDir as string;
    const ctx = recordingContext();
    const emit = ctx.emit;
    const cancelling = { ...ctx, emit: ((event, payload) => {
      emit(event, payload);
      if (event === 'stageDone') ctx.controller.abort();
    }) as typeof ctx.emit };
    expect(await codeOf(call(h, 'analyze', { projectDir, settings: h.settings.analysis }, cancelling))).toBe('cancelled');
    const rerun = await call(h, 'analyze', { projectDir, settings: h.settings.analysis });
    expect(rerun.stages.find((s) => s.stage === 'targets')?.cached).toBe(true);
    expect(rerun.stages.find((s) => s.stage === 'gates')?.cached).toBe(false);
  }, 120_000);

  it('export writes a checkpoint that opens, reports progress and is kept in the history', async () => {
    const outDir = join(h.root, 'exported');
    const ctx = recordingContext();
    const summary = await call(h, 'export', { outDir, dtype: 'source', shardBytes: 1 << 20, method: crane, overwrite: false }, ctx);
    expect(summary.files).toEqual(expect.arrayContaining(['config.json', 'crane_recipe.json', 'README.md']));
    expect((summary.recipe as { method: { method: string } }).method.method).toBe('crane');
    const progress = ctx.of('progress');
    expect(progress.every((p) => p.stage === 'export')).toBe(true);
    expect(progress.at(-1)?.fraction).toBe(1);
    const exported = await Checkpoint.open(outDir);
    const instruct = await Checkpoint.open(h.instruct);
    expect([...exported.tensors.keys()].sort()).toEqual([...instruct.tensors.keys()].sort());
    await Promise.all([exported.close(), instruct.close()]);
    const project = await readProjectFile((await call(h, 'getProjectState', {}))?.projectDir as string);
    expect(project?.exports.map((e) => e.outDir)).toEqual([outDir]);
    expect(await codeOf(call(h, 'export', { outDir, dtype: 'source', shardBytes: 1 << 20, method: crane, overwrite: false }))).not.toBe('ok');
  });

  it('a cancelled export ends cancelled and leaves nothing at its folder', async () => {
    const outDir = join(h.root, 'cancelled');
    const ctx = recordingContext();
    ctx.controller.abort();
    expect(await codeOf(call(h, 'export', { outDir, dtype: 'BF16', shardBytes: 1 << 20, method: { method: 'ties', lambda: 0.3, density: 0.5 }, overwrite: false }, ctx))).toBe('cancelled');
    await expect(access(outDir)).rejects.toThrow();
    expect(await codeOf(call(h, 'export', { outDir: 'relative/out', dtype: 'source', shardBytes: 1 << 20, method: crane, overwrite: false }))).toBe('invalid-path');
  });

  it('verify measures base and edited losses on the project\'s evaluation set, says which, and keeps CRANE results as verified points', async () => {
    const ctx = recordingContext();
    const started = Date.now();
    const result = await call(h, 'verify', { method: crane }, ctx);
    expect(result.measuredOn).toEqual({ source: 'calibration' });
    // A run of the history: the preview's prediction for exactly this edit, and when it ended.
    expect(Number.isFinite(result.predicted?.reasoning)).toBe(true);
    expect(Number.isFinite(result.predicted?.agent)).toBe(true);
    const finished = Date.parse(result.finishedAt ?? '');
    expect(finished).toBeGreaterThanOrEqual(started);
    expect(finished).toBeLessThanOrEqual(Date.now());
    expect(result.base.reasoning).toBeGreaterThan(0);
    expect(result.edited.reasoning).not.toBe(result.base.reasoning);
    expect(ctx.of('progress').some((p) => p.stage === 'verify')).toBe(true);
    // Evaluation files chosen after the analysis: no re-analysis, the next Verify measures on them.
    const files = { source: 'files' as const, ...h.evaluation };
    await h.session.update((p) => ({ ...p, analysis: p.analysis === null ? null : { ...p.analysis, evaluation: files } }));
    const aim = await call(h, 'verify', { method: { method: 'aim', lambda: 0.3, omega: 0.4 } });
    expect(aim.method.method).toBe('aim');
    expect(aim.measuredOn).toEqual(files);
    expect(aim.base.reasoning).not.toBe(result.base.reasoning);
    expect(aim.predicted).toBeNull();
    const saved = (await call(h, 'getProjectState', {}))?.project.verified;
    expect(saved).toHaveLength(1);
    expect(saved?.[0]?.predicted).toEqual(result.predicted);
    expect(saved?.[0]?.finishedAt).toBe(result.finishedAt);
  }, 120_000);
});
