import { describe, expect, it } from 'vitest';
import type { LayerActivations } from '../model/activations.ts';
import { useTinyModel } from '../model/testing/tiny-model-fixture.ts';
import { relativeError } from '../tensor/testing/relative-error.ts';
import { AIM_MAX_TOKENS, aimImportanceMeasurement, aimPrompts } from './aim-importance.ts';
import type { CalibrationSequence } from './calibration-sequences.ts';
import { runSharedForward } from './shared-forward.ts';

const chat = (set: CalibrationSequence['set'], split: CalibrationSequence['split'], ids: number[], lossMask?: number[]): CalibrationSequence => ({
  set, split, source: 'test', ids, ...(lossMask === undefined ? {} : { lossMask }),
});

describe('aimPrompts', () => {
  it('D_R and D_A train chats up to their first generated token, cut at 512; held-out and D_F left out', () => {
    const long = Array.from({ length: 600 }, (_, i) => i % 50);
    const prompts = aimPrompts([
      chat('reasoning', 'train', [1, 2, 3, 4, 5], [0, 0, 0, 1, 1]),
      chat('agent', 'train', [6, 7, 8], [0, 0, 0]),
      chat('agent', 'train', long, long.map(() => 0)),
      chat('reasoning', 'heldout', [9, 9], [0, 1]),
      chat('format', 'train', [10, 11]),
      chat('reasoning', 'train', [12, 13], [1, 1]),
    ]);
    expect(prompts.map((p) => p.length)).toEqual([3, 3, AIM_MAX_TOKENS]);
    expect(prompts[0]).toEqual([1, 2, 3]);
    expect(prompts[2]).toEqual(long.slice(0, AIM_MAX_TOKENS));
  });
});

describe('aimImportanceMeasurement on a tiny model', () => {
  const tiny = useTinyModel({ family: 'qwen3', seed: 11, layers: 2 });
  const prompts = [[4, 8, 15, 16, 23, 42, 7], [7, 1, 9]];
  const computeAimImportance = async (batch: number) => {
    const measurement = aimImportanceMeasurement(prompts);
    await runSharedForward(tiny.model, [measurement.requests], { batch });
    return measurement.result();
  };

  it('is the mean over prompts of each prompt\'s mean |x|, whatever the batch (checked on captureActivations)', async () => {
    const one = await computeAimImportance(1);
    const both = await computeAimImportance(2);
    expect([...one.keys()]).toHaveLength(7 * tiny.model.spec.numLayers);
    const d = tiny.model.spec.hiddenSize;
    const perPrompt = new Map<string, Float64Array[]>();
    await tiny.model.captureActivations(prompts.map((ids) => ({ ids, positions: ids.map((_, i) => i) })), (a: LayerActivations) => {
      for (const [key, rows] of [[`model.layers.${a.layer}.self_attn.k_proj`, a.attnInput], [`model.layers.${a.layer}.mlp.gate_proj`, a.ffnInput]] as const) {
        const mean = new Float64Array(d);
        const count = rows.length / d;
        for (let r = 0; r < count; r++) for (let j = 0; j < d; j++) mean[j] = (mean[j] as number) + Math.abs(rows[r * d + j] as number) / count;
        perPrompt.set(key, [...(perPrompt.get(key) ?? []), mean]);
      }
    });
    for (const [key, means] of perPrompt) {
      const want = Float64Array.from({ length: d }, (_, j) => means.reduce((s, m) => s + (m[j] as number), 0) / means.length);
      expect(relativeError(one.get(key) as Float64Array, want)).toBeLessThan(1e-5);
      expect(relativeError(both.get(key) as Float64Array, want)).toBeLessThan(1e-5);
    }
  });
});
