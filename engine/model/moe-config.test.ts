import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { parseModelSpec } from './config.ts';
import { isSparseLayer } from './moe-config.ts';

/** Qwen3-30B-A3B-Instruct-2507's config.json (architectures.md §4.1). */
const QWEN3_30B_A3B = {
  architectures: ['Qwen3MoeForCausalLM'], model_type: 'qwen3_moe', hidden_size: 2048, intermediate_size: 6144,
  num_hidden_layers: 48, num_attention_heads: 32, num_key_value_heads: 4, head_dim: 128, hidden_act: 'silu',
  moe_intermediate_size: 768, num_experts: 128, num_experts_per_tok: 8, norm_topk_prob: true, decoder_sparse_step: 1,
  mlp_only_layers: [], router_aux_loss_coef: 0.001, rms_norm_eps: 1e-6, rope_theta: 10000000, vocab_size: 151936,
  tie_word_embeddings: false, attention_bias: false, eos_token_id: 151645, use_sliding_window: false,
};

describe('Qwen3-MoE config.json → ModelSpec.moe', () => {
  it('reads Qwen3-30B-A3B: Qwen3 attention, 128 experts top-8 renormalised, every layer sparse', () => {
    const spec = parseModelSpec(QWEN3_30B_A3B);
    expect(spec).toMatchObject({ family: 'qwen3', qkNorm: true, numLayers: 48, numKvHeads: 4, tiedEmbeddings: false });
    expect(spec.moe).toEqual({ numExperts: 128, expertsPerToken: 8, normTopkProb: true, expertIntermediateSize: 768, mlpOnlyLayers: [], decoderSparseStep: 1 });
    expect(Array.from({ length: 48 }, (_, l) => isSparseLayer(spec.moe, l)).every(Boolean)).toBe(true);
  });

  it('mlp_only_layers and decoder_sparse_step choose the dense layers (transformers rule)', () => {
    const moe = parseModelSpec({ ...QWEN3_30B_A3B, num_hidden_layers: 6, mlp_only_layers: [3], decoder_sparse_step: 2 }).moe;
    expect([0, 1, 2, 3, 4, 5].filter((l) => isSparseLayer(moe, l))).toEqual([1, 5]);
    expect(isSparseLayer(parseModelSpec({ ...QWEN3_30B_A3B, architectures: ['Qwen3ForCausalLM'] }).moe, 0)).toBe(false);
  });

  it('defaults: no renormalisation, step 1, no dense layers', () => {
    const absent = new Set(['norm_topk_prob', 'decoder_sparse_step', 'mlp_only_layers']);
    const rest = Object.fromEntries(Object.entries(QWEN3_30B_A3B).filter(([key]) => !absent.has(key)));
    expect(parseModelSpec(rest).moe).toMatchObject({ normTopkProb: false, decoderSparseStep: 1, mlpOnlyLayers: [] });
  });

  it('refuses broken MoE keys naming config.json and the key', () => {
    const bad = (change: Record<string, unknown>, message: RegExp): void => {
      expect(() => parseModelSpec({ ...QWEN3_30B_A3B, ...change }, '/m')).toThrow(CheckpointError);
      expect(() => parseModelSpec({ ...QWEN3_30B_A3B, ...change }, '/m')).toThrow(message);
    };
    bad({ num_experts: undefined }, /\/m\/config\.json.*"num_experts" must be a positive integer/);
    bad({ num_experts_per_tok: 129 }, /"num_experts_per_tok" \(129\) exceeds "num_experts" \(128\)/);
    bad({ mlp_only_layers: [48] }, /"mlp_only_layers" must be a list of layer indices in 0…47/);
    bad({ norm_topk_prob: 'yes' }, /"norm_topk_prob" must be true or false/);
    bad({ shared_expert_intermediate_size: 512 }, /shared expert/);
    bad({ moe_intermediate_size: 0 }, /"moe_intermediate_size" must be a positive integer/);
  });
});
