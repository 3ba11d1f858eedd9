import { describe, expect, it } from 'vitest';
import { classifyTensor, projectorKey, referenceGroup } from './tensor-classification.ts';

const pick = (name: string) => {
  const c = classifyTensor(name);
  return [c.layer, c.group, c.block, c.expert, c.gspKey, c.rule];
};

describe('classifyTensor', () => {
  it.each([
    // Qwen3 dense
    ['model.embed_tokens.weight', null, 'embed', 'embed', null, null, 'embedding'],
    ['lm_head.weight', null, 'lm_head', 'lm_head', null, null, 'lm_head'],
    ['model.norm.weight', null, 'final_norm', 'final_norm', null, null, 'crane'],
    ['model.layers.0.input_layernorm.weight', 0, 'norm', 'input_norm', null, null, 'crane'],
    ['model.layers.35.post_attention_layernorm.weight', 35, 'norm', 'post_norm', null, null, 'crane'],
    ['model.layers.3.self_attn.q_proj.weight', 3, 'attention', 'q', null, 'attn_input', 'crane'],
    ['model.layers.3.self_attn.k_proj.weight', 3, 'attention', 'k', null, 'attn_input', 'crane'],
    ['model.layers.3.self_attn.v_proj.weight', 3, 'attention', 'v', null, 'attn_input', 'crane'],
    ['model.layers.3.self_attn.o_proj.weight', 3, 'attention', 'o', null, null, 'crane'],
    ['model.layers.3.self_attn.q_norm.weight', 3, 'attention', 'q_norm', null, null, 'crane'],
    ['model.layers.3.self_attn.k_norm.weight', 3, 'attention', 'k_norm', null, null, 'crane'],
    ['model.layers.3.mlp.gate_proj.weight', 3, 'ffn', 'gate', null, 'ffn_input', 'crane'],
    ['model.layers.3.mlp.up_proj.weight', 3, 'ffn', 'up', null, 'ffn_input', 'crane'],
    ['model.layers.3.mlp.down_proj.weight', 3, 'ffn', 'down', null, null, 'crane'],
    // Qwen2 biases: never projected
    ['model.layers.1.self_attn.q_proj.bias', 1, 'attention', 'q', null, null, 'crane'],
    ['model.layers.1.self_attn.v_proj.bias', 1, 'attention', 'v', null, null, 'crane'],
    // Qwen3-MoE
    ['model.layers.7.mlp.gate.weight', 7, 'router', 'router', null, null, 'router'],
    ['model.layers.7.mlp.experts.127.gate_proj.weight', 7, 'expert', 'gate', 127, 'ffn_input', 'crane'],
    ['model.layers.7.mlp.experts.0.up_proj.weight', 7, 'expert', 'up', 0, 'ffn_input', 'crane'],
    ['model.layers.7.mlp.experts.5.down_proj.weight', 7, 'expert', 'down', 5, null, 'crane'],
    ['model.layers.7.mlp.experts.gate_up_proj', 7, 'expert', 'gate_up', null, 'ffn_input', 'crane'],
    ['model.layers.7.mlp.experts.down_proj', 7, 'expert', 'down', null, null, 'crane'],
    // Qwen3-Next
    ['model.layers.0.linear_attn.in_proj_qkvz.weight', 0, 'linear_attn', 'in_proj_qkvz', null, 'attn_input', 'crane'],
    ['model.layers.0.linear_attn.in_proj_ba.weight', 0, 'linear_attn', 'in_proj_ba', null, 'attn_input', 'crane'],
    ['model.layers.0.linear_attn.conv1d.weight', 0, 'linear_attn', 'conv1d', null, null, 'crane'],
    ['model.layers.0.linear_attn.dt_bias', 0, 'linear_attn', 'dt_bias', null, null, 'crane'],
    ['model.layers.0.linear_attn.A_log', 0, 'linear_attn', 'A_log', null, null, 'crane'],
    ['model.layers.0.linear_attn.norm.weight', 0, 'linear_attn', 'norm', null, null, 'crane'],
    ['model.layers.0.linear_attn.out_proj.weight', 0, 'linear_attn', 'out_proj', null, 'linattn_inner', 'crane'],
    ['model.layers.4.mlp.shared_expert.gate_proj.weight', 4, 'shared_expert', 'gate', null, 'ffn_input', 'crane'],
    ['model.layers.4.mlp.shared_expert.up_proj.weight', 4, 'shared_expert', 'up', null, 'ffn_input', 'crane'],
    ['model.layers.4.mlp.shared_expert.down_proj.weight', 4, 'shared_expert', 'down', null, null, 'crane'],
    ['model.layers.4.mlp.shared_expert_gate.weight', 4, 'router', 'shared_expert_gate', null, null, 'router'],
    // Multimodal wrapper prefix, extra layer norms
    ['model.language_model.layers.2.self_attn.q_proj.weight', 2, 'attention', 'q', null, 'attn_input', 'crane'],
    ['model.layers.2.pre_feedforward_layernorm.weight', 2, 'norm', 'pre_feedforward_layernorm', null, null, 'crane'],
  ])('%s', (name, layer, group, block, expert, gspKey, rule) => {
    expect(pick(name)).toEqual([layer, group, block, expert, gspKey, rule]);
  });

  it('classifies unknown names as other: a layer block inside layers, layerless outside', () => {
    expect(pick('model.layers.2.self_attn.rotary_emb.inv_freq')).toEqual([2, 'other', 'self_attn.rotary_emb.inv_freq', null, null, 'crane']);
    expect(pick('model.rotary_emb.inv_freq')).toEqual([null, 'other', 'model.rotary_emb.inv_freq', null, null, 'crane']);
  });

  it('does not mistake the multi-token-prediction head for decoder layer 0', () => {
    expect(classifyTensor('mtp.layers.0.self_attn.q_proj.weight')).toMatchObject({ layer: null, group: 'other', gspKey: null });
  });

  it('names the reference group and projector keys', () => {
    expect(referenceGroup(false)).toBe('ffn');
    expect(referenceGroup(true)).toBe('expert');
    expect(projectorKey(12, 'ffn_input')).toBe('layer_12_ffn_input');
  });
});
