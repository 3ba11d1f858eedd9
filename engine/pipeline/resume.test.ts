/**
 * Resumability and invalidation of the analysis cache: a run cancelled inside a stage resumes
 * there (earlier stages reported cached) and ends with the result of an uninterrupted run; a
 * changed setting or input file re-runs exactly the stages downstream of it, saying why.
 */
import { appendFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gateTableJson } from '../analysis/gate-table-file.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { initBackend } from '../tensor/backend.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import { CancelledError, type StageDoneEvent } from './progress.ts';
import { runAnalysis, type AnalyzeOptions } from './run-analysis.ts';
import { writeTinyProject } from './testing/tiny-project.ts';

beforeAll(async () => {
  await initBackend('wasm');
});

async function analyse(options: Omit<AnalyzeOptions, 'onStageDone'>) {
  const events: StageDoneEvent[] = [];
  const run = await runAnalysis({ ...options, onStageDone: (e) => events.push(e) });
  return { run, events, summary: events.map((e) => `${e.stage}:${e.cached ? 'cached' : 'ran'}`) };
}

describe('analysis cache', () => {
  it('resumes a run cancelled inside the gradients stage and gives the uninterrupted result', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    const reference = await analyse({ ...project, outDir: join(root, 'reference') });
    const outDir = join(root, 'analysis');
    const controller = new AbortController();
    const onProgress = (e: { stage: string; message?: string }) => {
      if (e.stage === 'gradients' && e.message?.startsWith('g_R batch 1/') === true) controller.abort();
    };
    await expect(runAnalysis({ ...project, outDir, signal: controller.signal, onProgress })).rejects.toBeInstanceOf(CancelledError);
    // The committed batch survived; nothing was marked done and no result exists.
    expect(await readdir(join(outDir, 'stages', 'gradients', 'reasoning'))).toEqual(expect.arrayContaining(['progress.json', 'layer_0@1.safetensors']));
    expect(await readdir(join(outDir, 'stages', 'gradients'))).not.toContain('done.json');
    expect(await readdir(outDir)).not.toContain('result');
    const messages: string[] = [];
    const resumed = await analyse({ ...project, outDir, onLog: (m) => messages.push(m) });
    expect(resumed.summary).toEqual(['targets:cached', 'projectors:cached', 'gradients:ran', 'gates:ran', 'curvature:ran']);
    expect(messages).toContain('gradients: resuming an interrupted run');
    expect(gateTableJson(resumed.run.artifacts.gate)).toEqual(gateTableJson(reference.run.artifacts.gate));
    expect(resumed.run.artifacts.coefficients).toEqual(reference.run.artifacts.coefficients);
    expect((await analyse({ ...project, outDir })).summary).toEqual(['targets:cached', 'projectors:cached', 'gradients:cached', 'gates:cached', 'curvature:cached']);
  }));

  it('re-runs only the stages downstream of a changed setting or input, with the reasons', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    const outDir = join(root, 'analysis');
    await analyse({ ...project, outDir });
    const gsp = (change: Partial<PipelineSettings['analysis']['gsp']>): PipelineSettings => ({ ...project.settings, analysis: { ...project.settings.analysis, gsp: { ...project.settings.analysis.gsp, ...change } } });

    const rank = await analyse({ ...project, settings: gsp({ maxRank: 4 }), outDir });
    expect(rank.summary).toEqual(['targets:cached', 'projectors:ran', 'gradients:cached', 'gates:ran', 'curvature:ran']);
    expect(rank.events[1]?.staleReasons).toEqual(['maxRank changed']);
    expect(Math.max(...[...rank.run.artifacts.projectors.values()].map((p) => p.rank))).toBe(4);

    const radius = await analyse({ ...project, settings: gsp({ maxRank: 4, radius: 1 }), outDir });
    expect(radius.summary).toEqual(['targets:ran', 'projectors:ran', 'gradients:ran', 'gates:ran', 'curvature:ran']);
    expect(radius.events[0]?.staleReasons).toEqual(['radius changed']);
    expect(radius.events[3]?.staleReasons).toEqual(['analysis settings changed']);

    const q = await analyse({ ...project, settings: { ...gsp({ maxRank: 4, radius: 1 }), keepQuantile: 0.7 }, outDir });
    expect(q.summary).toEqual(['targets:cached', 'projectors:cached', 'gradients:cached', 'gates:ran', 'curvature:ran']);
    expect(q.run.artifacts.coefficients.keepQuantile).toBe(0.7);

    await appendFile(project.settings.analysis.calibration.format, `${JSON.stringify({ messages: [{ role: 'user', content: 'The weather in Paris?' }, { role: 'assistant', content: 'It is sunny.' }] })}\n`);
    const input = await analyse({ ...project, settings: { ...gsp({ maxRank: 4, radius: 1 }), keepQuantile: 0.7 }, outDir });
    expect(input.summary).toEqual(['targets:ran', 'projectors:ran', 'gradients:ran', 'gates:ran', 'curvature:ran']);
    expect(input.events[0]?.staleReasons).toEqual(['format changed']);
    expect(input.events[3]?.staleReasons?.join('\n')).toMatch(/input format: [0-9a-f]+ then, [0-9a-f]+ now/);
  }), 300_000); // five analyses, each with a curvature stage of B+1 backward passes per set

  it('re-runs the gradients and every stage that reads them when the batch split changes, with the reasons', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    const outDir = join(root, 'analysis');
    await analyse({ ...project, outDir });
    // The split decides the gradient sums' rounding: gates and curvature read those sums.
    const split = await analyse({ ...project, settings: { ...project.settings, batchSequences: 1 }, outDir });
    expect(split.summary).toEqual(['targets:cached', 'projectors:cached', 'gradients:ran', 'gates:ran', 'curvature:ran']);
    expect(split.events.slice(2).map((e) => e.staleReasons)).toEqual([['batches changed'], ['batches changed'], ['batches changed']]);
    expect((await analyse({ ...project, settings: { ...project.settings, batchSequences: 1 }, outDir })).summary)
      .toEqual(['targets:cached', 'projectors:cached', 'gradients:cached', 'gates:cached', 'curvature:cached']);
  }), 200_000); // three analyses
});
