/**
 * Verify and export against each other: the exported checkpoint reloads to the same logits as
 * the in-memory edited weights verify measures, the train-split measurement agrees with the
 * first-order prediction at small α, and a changed checkpoint is refused.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../protocol/settings-schemas.ts';
import { exportMerge } from '../export/export-checkpoint.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadTestTokenizer } from '../calibration/testing/fixture.ts';
import { readSequences } from './calibration-sequences.ts';
import { editFor, tokenRowsOf } from './edit-method.ts';
import { editedWeightSource } from './edited-source.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { analysedProject, type AnalysedProject } from './testing/analysed-project.ts';
import { verifyEdit } from './verify.ts';

let project: AnalysedProject;
let settings: ResolvedCraneSettings;

beforeAll(async () => {
  await initBackend('wasm');
  project = await analysedProject(await mkdtemp(join(tmpdir(), 'crane-verify-')));
  settings = { ...defaultResolvedSettings(tokenRowsOf(await loadTestTokenizer())), alpha: 0.5 };
});

afterAll(() => rm(project.root, { recursive: true, force: true }));

describe('verify and export', () => {
  it('exports a checkpoint whose logits equal those of the in-memory edited weights', async () => {
    const instruct = await Checkpoint.open(project.instruct);
    const thinking = await Checkpoint.open(project.thinking);
    const outDir = join(project.root, 'merged');
    try {
      await exportMerge({ instruct, thinking, method: { method: 'crane', settings }, analysisDir: project.run.resultDir, dtype: 'F32', outDir });
      const context = { gate: project.run.artifacts.gate, projector: (k: string) => project.run.artifacts.projectors.get(k) };
      const inMemory = loadCausalLM(editedWeightSource(instruct, thinking, editFor({ method: 'crane', settings }, context)));
      const exported = await Checkpoint.open(outDir);
      try {
        const ids = (await readSequences(pipelinePaths(project.outDir).sequences))[0]?.ids as number[];
        const [a, b] = [await inMemory.forwardLogits(ids), await loadCausalLM(exported).forwardLogits(ids)];
        expect(b.values).toEqual(a.values);
        const base = await loadCausalLM(instruct).forwardLogits(ids);
        expect(base.values).not.toEqual(a.values);
      } finally {
        await exported.close();
      }
    } finally {
      await instruct.close();
      await thinking.close();
    }
  });

  it('measures ΔL next to the prediction; on the train split they agree in sign and size at small α', async () => {
    const small = await verifyEdit({ analysisDir: project.outDir, split: 'train', method: { method: 'crane', settings: { ...settings, alpha: 0.02 } } });
    for (const k of ['reasoning', 'agent'] as const) {
      const [measured, predicted] = [small.measured[k], small.predicted?.[k] ?? NaN];
      expect(Math.sign(measured), k).toBe(Math.sign(predicted));
      expect(Math.abs(measured - predicted), k).toBeLessThan(0.25 * Math.abs(predicted));
    }
    const heldOut = await verifyEdit({ analysisDir: project.outDir, method: { method: 'task_arithmetic', lambda: 0.3 } });
    expect(heldOut).toMatchObject({ split: 'heldout', predicted: null, sequences: { reasoning: 1, agent: 1 } });
    expect(heldOut.edited.reasoning).toBeCloseTo(heldOut.base.reasoning + heldOut.measured.reasoning, 12);
  });

  it('refuses an analysis whose checkpoint changed since', async () => {
    const file = join(project.thinking, 'generation_config.json');
    await writeFile(file, '{"temperature": 0.5}');
    try {
      await expect(verifyEdit({ analysisDir: project.outDir, method: { method: 'crane', settings } })).rejects.toThrow(/other checkpoint or calibration files/);
    } finally {
      await rm(file);
    }
  });
});
