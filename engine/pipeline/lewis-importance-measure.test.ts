import { describe, expect, it } from 'vitest';
import { referenceWandaImportance } from '../crane/testing/reference-lewis.ts';
import type { LayerActivations } from '../model/activations.ts';
import { useTinyModel } from '../model/testing/tiny-model-fixture.ts';
import { measureLewisImportance } from './lewis-importance-measure.ts';

const rowsOf = (flat: ArrayLike<number>, width: number): number[][] =>
  Array.from({ length: flat.length / width }, (_, r) => Array.from({ length: width }, (_, j) => flat[r * width + j] as number));

describe('measureLewisImportance: the Wanda score of every block Linear on the calibration prompts', () => {
  const tiny = useTinyModel({ family: 'llama', seed: 9, layers: 2 });
  const prompts = [[4, 8, 15, 16, 23, 42], [7, 1, 9]];

  it('equals sqrt Σ W² E[x²] with E pooled over both prompts\' tokens, from captured activations and plain loops', async () => {
    const importance = await measureLewisImportance(tiny.model, prompts, { batch: 2 });
    const { spec } = tiny.model;
    expect(importance.size).toBe(2 * 7);
    const captured: LayerActivations[] = [];
    await tiny.model.captureActivations(prompts.map((ids) => ({ ids, positions: ids.map((_, i) => i) })), (a) => { captured.push(a); });
    for (const layer of [0, 1]) {
      const mine = captured.filter((a) => a.layer === layer);
      for (const [projection, input] of [['self_attn.k_proj', 'attnInput'], ['mlp.up_proj', 'ffnInput']] as const) {
        const name = `model.layers.${layer}.${projection}`;
        const tokens = mine.flatMap((a) => rowsOf(a[input], spec.hiddenSize));
        const weight = rowsOf(await tiny.checkpoint.readFloat32(`${name}.weight`), spec.hiddenSize);
        const want = referenceWandaImportance(weight, tokens);
        expect(Math.abs((importance.get(name) as number) - want) / want, name).toBeLessThan(1e-5);
      }
    }
  });

  it('gives the same importances one prompt per pass', async () => {
    const [together, apart] = await Promise.all([measureLewisImportance(tiny.model, prompts, { batch: 2 }), measureLewisImportance(tiny.model, prompts, { batch: 1 })]);
    for (const [name, v] of together) expect(Math.abs((apart.get(name) as number) - v) / v, name).toBeLessThan(1e-5);
  });
});
