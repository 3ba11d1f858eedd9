/**
 * The studio's gate blocks against the reference pipeline's components. The expected names are
 * what src/_common.py `classify_component` of github.com/rpi-nsl/CRANE returns for each tensor
 * (worked out by hand from its substring rules), so a studio tensor is scored under the same
 * component name crane_merge.py looks up.
 */
import { describe, expect, it } from 'vitest';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { baselineOf, familyOf, referenceComponent, studioBlock } from './reference-components.ts';

const REFERENCE_COMPONENTS: readonly [string, string][] = [
  ['model.layers.3.self_attn.q_proj.weight', 'attention'],
  ['model.layers.3.self_attn.o_proj.weight', 'attention'],
  ['model.layers.3.self_attn.k_norm.weight', 'attention'],
  ['model.layers.3.self_attn.q_proj.bias', 'attention'],
  ['model.layers.3.mlp.gate_proj.weight', 'ffn'],
  ['model.layers.3.mlp.down_proj.weight', 'ffn'],
  ['model.layers.3.input_layernorm.weight', 'norm'],
  ['model.layers.3.post_attention_layernorm.weight', 'norm'],
  ['model.layers.3.mlp.gate.weight', 'router'],
  ['model.layers.3.mlp.experts.7.up_proj.weight', 'expert'],
  ['model.layers.3.mlp.experts.gate_up_proj', 'expert'],
  ['model.layers.3.mlp.shared_expert.down_proj.weight', 'shared_expert'],
  ['model.layers.3.mlp.shared_expert_gate.weight', 'router'],
  ['model.layers.3.linear_attn.in_proj_qkvz.weight', 'linear_attn'],
  ['model.layers.3.linear_attn.out_proj.weight', 'linear_attn'],
  ['model.layers.3.linear_attn.A_log', 'linear_attn'],
];

describe('reference components', () => {
  it('puts every layer tensor in the component the reference classifies it as', () => {
    for (const [name, component] of REFERENCE_COMPONENTS) {
      const { group, layer } = classifyTensor(name);
      if (group === 'embed' || group === 'lm_head' || group === 'final_norm') throw new Error(`${name} is not a layer tensor`);
      expect(referenceComponent({ group, block: null }), name).toBe(component);
      expect(layer, name).toBe(3);
    }
  });

  it('writes fine blocks as group.block and reads both forms back', () => {
    expect(referenceComponent({ group: 'attention', block: 'q' })).toBe('attention.q');
    expect(studioBlock('attention.q', 'f.json')).toEqual({ group: 'attention', block: 'q' });
    expect(studioBlock('shared_expert', 'f.json')).toEqual({ group: 'shared_expert', block: null });
    expect(() => studioBlock('mlp', 'f.json')).toThrow(/f\.json: component "mlp"/);
    expect(() => studioBlock('ffn.', 'f.json')).toThrow(/component "ffn\."/);
  });

  it('maps family and baseline as the reference (ffn for dense, expert for MoE and Next)', () => {
    expect(familyOf('ffn', new Set(['attention', 'ffn']))).toBe('dense');
    expect(familyOf('expert', new Set(['expert', 'router']))).toBe('moe');
    expect(familyOf('expert', new Set(['expert', 'linear_attn']))).toBe('next');
    expect(baselineOf({ family: 'moe' }, 'f.json')).toBe('expert');
    expect(baselineOf({ family: 'dense' }, 'f.json')).toBe('ffn');
    expect(baselineOf({ baseline_component: 'expert', family: 'dense' }, 'f.json')).toBe('expert');
    expect(() => baselineOf({ baseline_component: 'ffn.up' }, 'f.json')).toThrow(/coarse/);
  });
});
