/**
 * An analysis' LEWIS importance files on the tiny analysed project: Instruct's file is the base,
 * Thinking's the fine-tuned, each the measurement of that checkpoint on the analysis' prompts;
 * a second call reads the cache, other calibration sequences measure again, and a cancelled
 * measurement leaves no marker (the next call measures).
 */
import { access, appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLewisImportance } from '../crane/lewis-importance-file.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { initBackend } from '../tensor/backend.ts';
import { aimPrompts } from './aim-importance.ts';
import { readSequences } from './calibration-sequences.ts';
import { analysisLewisImportance } from './lewis-importance-stage.ts';
import { measureLewisImportance } from './lewis-importance-measure.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { CancelledError } from './progress.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';

let project: AnalysedProject;

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-lewis-stage-')));
}, 180_000);

afterAll(() => rm(project.root, { recursive: true, force: true }));

async function measured(dir: string): Promise<Map<string, number>> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    return await measureLewisImportance(loadCausalLM(checkpoint), aimPrompts(await readSequences(pipelinePaths(project.outDir).sequences)), { batch: 3 });
  } finally {
    await checkpoint.close();
  }
}

describe('analysisLewisImportance', () => {
  it('measures Instruct as the base and Thinking as the fine-tuned model, then reads the cache', async () => {
    let reports = 0;
    const files = await analysisLewisImportance(project.outDir, { onProgress: () => { reports += 1; } });
    expect(reports).toBeGreaterThan(0);
    const [base, tuned] = [await readLewisImportance(files.lewisBase), await readLewisImportance(files.lewisTuned)];
    const [wantBase, wantTuned] = [await measured(project.instruct), await measured(project.thinking)];
    for (const [got, want] of [[base.importance, wantBase], [tuned.importance, wantTuned]] as const) {
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [moduleName, v] of want) expect(got.get(moduleName)).toBeCloseTo(v, 4);
    }
    reports = 0;
    const again = await analysisLewisImportance(project.outDir, { onProgress: () => { reports += 1; } });
    expect(again).toEqual(files);
    expect(reports).toBe(0);
    expect((await readLewisImportance(files.lewisBase)).sha256).toBe(base.sha256);
  }, 120_000);

  it('measures again when the calibration sequences change, and a cancelled run leaves no cache', async () => {
    const { sequences } = pipelinePaths(project.outDir);
    const first = JSON.parse((await readFile(sequences, 'utf8')).split('\n')[0] as string) as unknown;
    await appendFile(sequences, `${JSON.stringify(first)}\n`);
    const controller = new AbortController();
    controller.abort();
    const cancelled = analysisLewisImportance(project.outDir, { signal: controller.signal });
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    await expect(access(join(project.outDir, 'stages', 'lewis', 'done.json'))).rejects.toThrow();
    let reports = 0;
    await analysisLewisImportance(project.outDir, { onProgress: () => { reports += 1; } });
    expect(reports).toBeGreaterThan(0);
    await access(join(project.outDir, 'stages', 'lewis', 'done.json'));
  }, 120_000);
});
