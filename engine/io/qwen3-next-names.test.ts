/** The Qwen3-Next tensor grammar: layer kinds from layer_types or the interval, experts, the mtp head, unknown names. */
import { describe, expect, it } from 'vitest';
import { isQwen3Next, unknownQwen3NextTensors } from './qwen3-next-names.ts';

const NEXT = { model_type: 'qwen3_next', num_hidden_layers: 48, num_experts: 512 };

describe('unknownQwen3NextTensors', () => {
  it('knows the 80B names: DeltaNet on 3 of 4 layers, gated attention on every 4th, 512 experts, shared expert, mtp head', () => {
    const names = [
      'model.embed_tokens.weight', 'lm_head.weight', 'model.norm.weight',
      'model.layers.0.linear_attn.in_proj_qkvz.weight', 'model.layers.0.linear_attn.dt_bias', 'model.layers.2.linear_attn.A_log',
      'model.layers.3.self_attn.q_proj.weight', 'model.layers.47.self_attn.k_norm.weight', 'model.layers.47.input_layernorm.weight',
      'model.layers.5.mlp.experts.511.down_proj.weight', 'model.layers.5.mlp.shared_expert_gate.weight', 'model.layers.5.mlp.gate.weight',
      'mtp.fc.weight', 'mtp.pre_fc_norm_hidden.weight', 'mtp.layers.0.self_attn.o_proj.weight', 'mtp.layers.0.mlp.experts.7.up_proj.weight',
    ];
    expect(unknownQwen3NextTensors(names, NEXT)).toEqual([]);
  });

  it('reads the layer kinds from layer_types when the config lists them', () => {
    const config = { ...NEXT, num_hidden_layers: 2, layer_types: ['full_attention', 'linear_attention'] };
    expect(unknownQwen3NextTensors(['model.layers.0.self_attn.v_proj.weight', 'model.layers.1.linear_attn.out_proj.weight'], config)).toEqual([]);
    expect(unknownQwen3NextTensors(['model.layers.0.linear_attn.out_proj.weight'], config)).toEqual([
      { name: 'model.layers.0.linear_attn.out_proj.weight', reason: 'is a gated DeltaNet tensor in a full-attention layer' },
    ]);
  });

  it('names each tensor it does not know, with why', () => {
    const found = unknownQwen3NextTensors(['model.layers.01.input_layernorm.weight', 'model.layers.7.mlp.experts.512.gate_proj.weight', 'mtp.layers.0.linear_attn.A_log', 'model.rotary_emb.inv_freq'], NEXT);
    expect(found.map((u) => u.name)).toEqual(['model.layers.01.input_layernorm.weight', 'model.layers.7.mlp.experts.512.gate_proj.weight', 'mtp.layers.0.linear_attn.A_log', 'model.rotary_emb.inv_freq']);
    expect(found[1]?.reason).toBe('is routed expert 512, past num_experts 512');
  });

  it('applies to qwen3_next configs only', () => {
    expect(isQwen3Next(NEXT)).toBe(true);
    expect(isQwen3Next({ model_type: 'qwen3_moe' })).toBe(false);
  });
});
