/**
 * Verify and export against each other: the exported checkpoint reloads to the same logits as
 * the in-memory edited weights verify measures, the measurement on the calibration sets agrees
 * with the first-order prediction at small α, Verify measures on exactly the evaluation set it
 * is told and records which, and a changed checkpoint is refused.
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
  settings = { ...defaultResolvedSettings(tokenRowsOf((await loadTestTokenizer()).source.tokenizerJson)), alpha: 0.5 };
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

  it('measures ΔL next to the prediction; on the calibration sets they agree in sign and size at small α', async () => {
    // Think rows at 0: their rule moves <think> rows whatever α is, outside what the prediction covers.
    const layersOnly = { ...settings, alpha: 0.02, special: { ...settings.special, thinkRows: 0 } };
    const small = await verifyEdit({ analysisDir: project.outDir, evaluation: { source: 'calibration' }, method: { method: 'crane', settings: layersOnly } });
    for (const k of ['reasoning', 'agent'] as const) {
      const [measured, predicted] = [small.measured[k], small.predicted?.[k] ?? NaN];
      expect(Math.sign(measured), k).toBe(Math.sign(predicted));
      expect(Math.abs(measured - predicted), k).toBeLessThan(0.25 * Math.abs(predicted));
    }
    // The analysis was given no evaluation set: Verify measures on every calibration sequence and says so.
    const byDefault = await verifyEdit({ analysisDir: project.outDir, method: { method: 'task_arithmetic', lambda: 0.3 } });
    expect(byDefault).toMatchObject({ measuredOn: { source: 'calibration' }, predicted: null, sequences: { reasoning: 4, agent: 3 } });
    expect(byDefault.edited.reasoning).toBeCloseTo(byDefault.base.reasoning + byDefault.measured.reasoning, 12);
  });

  it('measures on the evaluation files it is given: their losses are those of the same chats in the calibration set', async () => {
    const evaluation = { source: 'files' as const, ...project.evaluation };
    const result = await verifyEdit({ analysisDir: project.outDir, evaluation, method: { method: 'task_arithmetic', lambda: 0.3 } });
    expect(result).toMatchObject({ measuredOn: evaluation, sequences: { reasoning: 1, agent: 1 } });
    // The eval files hold D_R line 2 (a given target) and D_A line 1 (decoded by Instruct, from the same cache).
    const sequences = await readSequences(pipelinePaths(project.outDir).sequences);
    const same = (set: string, line: number) => sequences.find((s) => s.set === set && s.source.endsWith(`:${line}`));
    const instruct = await Checkpoint.open(project.instruct);
    try {
      const losses = await loadCausalLM(instruct).sequenceLosses([same('reasoning', 2), same('agent', 1)].map((s) => ({ ids: s?.ids ?? [], targets: s?.lossMask ?? [] })));
      expect(result.base.reasoning).toBeCloseTo(losses[0]?.loss ?? NaN, 6);
      expect(result.base.agent).toBeCloseTo(losses[1]?.loss ?? NaN, 6);
    } finally {
      await instruct.close();
    }
  });

  it('refuses a held-out share the analysis did not keep out of its gradients, and an eval file that is missing', async () => {
    await expect(verifyEdit({ analysisDir: project.outDir, evaluation: { source: 'held-out', fraction: 0.25 }, method: { method: 'slerp', t: 0.3 } }))
      .rejects.toThrow(/held out 0 of the calibration sets from its gradients, not 0\.25/);
    const missing = join(project.root, 'data', 'no-such-eval.jsonl');
    await expect(verifyEdit({ analysisDir: project.outDir, evaluation: { source: 'files', reasoning: missing, agent: project.evaluation.agent }, method: { method: 'slerp', t: 0.3 } }))
      .rejects.toThrow(/no-such-eval\.jsonl/);
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
