/**
 * The Qwen3-30B-A3B-shaped checkpoint's tensors: the real names and counts, scaled widths, one
 * full-size expert layer; the Nanbeige4.2-3B-shaped looped config the runtime reads as two passes.
 */
import { describe, expect, it } from 'vitest';
import { classifyTensor } from '../engine/crane/tensor-classification.ts';
import { parseModelSpec } from '../engine/model/config.ts';
import { layerParamShapes } from '../engine/model/weights.ts';
import { nanbeigeConfig, QWEN3_30B_A3B_TENSORS, scaledMoeConfig, shapedMoeSpecs } from './shaped-checkpoint.ts';

describe('nanbeigeConfig', () => {
  it('is read as Nanbeige4.2-3B: two passes with the norm between, head_dim 128 ≠ 3072 / 48, 143,136,768 parameters per layer', () => {
    const spec = parseModelSpec(nanbeigeConfig(2));
    expect(spec.loop).toEqual({ numLoops: 2, normBetweenPasses: true });
    expect([spec.numLayers, spec.headDim, spec.numHeads, spec.numKvHeads, spec.vocabSize]).toEqual([2, 128, 48, 8, 166_144]);
    const params = [...layerParamShapes(spec, 0).values()].reduce((sum, shape) => sum + shape.reduce((a, b) => a * b, 1), 0);
    // the index's total: 2·166144·3072 + 3072 + 22 · this = 4,169,800,704 parameters (architectures.md §6.2)
    expect(params).toBe(143_136_768);
    expect(2 * 166_144 * 3072 + 3072 + 22 * params).toBe(4_169_800_704);
  });
});

describe('shapedMoeSpecs', () => {
  const specs = shapedMoeSpecs({ scale: 8, fullSizeExpertLayer: 0 });
  const shapeOf = (name: string) => specs.find((s) => s.name === name)?.shape;

  it('has Qwen3-30B-A3B\'s 18,867 distinct names: per layer 6 attention, 2 norms, the router and 128 × 3 experts', () => {
    expect(QWEN3_30B_A3B_TENSORS).toBe(18_867);
    expect(new Set(specs.map((s) => s.name)).size).toBe(18_867);
    const groups = new Map<string, number>();
    for (const { name } of specs) {
      const { group } = classifyTensor(name);
      groups.set(group, (groups.get(group) ?? 0) + 1);
    }
    expect(Object.fromEntries(groups)).toEqual({ embed: 1, attention: 48 * 6, norm: 48 * 2, router: 48, expert: 48 * 384, final_norm: 1, lm_head: 1 });
    expect(specs.filter((s) => classifyTensor(s.name).expert === 127)).toHaveLength(48 * 3);
  });

  it('divides every width by the scale and keeps heads and experts; layer 0\'s experts stay full size', () => {
    expect(shapeOf('model.embed_tokens.weight')).toEqual([18_992, 256]);
    expect(shapeOf('lm_head.weight')).toEqual([18_992, 256]);
    expect(shapeOf('model.layers.5.self_attn.q_proj.weight')).toEqual([512, 256]);
    expect(shapeOf('model.layers.5.self_attn.k_proj.weight')).toEqual([64, 256]);
    expect(shapeOf('model.layers.5.self_attn.q_norm.weight')).toEqual([16]);
    expect(shapeOf('model.layers.47.mlp.gate.weight')).toEqual([128, 256]);
    expect(shapeOf('model.layers.1.mlp.experts.3.gate_proj.weight')).toEqual([96, 256]);
    expect(shapeOf('model.layers.0.mlp.experts.3.gate_proj.weight')).toEqual([768, 2048]);
    expect(shapeOf('model.layers.0.mlp.experts.127.down_proj.weight')).toEqual([2048, 768]);
    expect(shapeOf('model.layers.0.mlp.gate.weight')).toEqual([128, 256]);
  });

  it('refuses a scale that does not divide every width', () => {
    expect(() => scaledMoeConfig(3)).toThrow(/scale 3 does not divide hidden_size 2048/);
    expect(() => scaledMoeConfig(256)).toThrow(/does not divide/);
  });
});
