/**
 * The built-in MoE demo pair: laid out like the dense demo (demoPaths(DEMO_MOE_ROOT): base/,
 * instruct/, thinking/, data/, training-report.json), and its model: a Qwen3-MoE with the dense
 * demo's attention and a sparse MLP on every layer (8 experts, top-2, renormalised), so each
 * token runs as much MLP as the dense demo's (2 × 128 inner = 256).
 */
import { fileURLToPath } from 'node:url';
import { demoModelConfig } from './demo-layout.ts';

export const DEMO_MOE_ROOT = fileURLToPath(new URL('../../assets/demo-moe/', import.meta.url));

export function demoMoeModelConfig(vocabSize: number, endOfTurnId: number): Record<string, unknown> {
  return {
    ...demoModelConfig(vocabSize, endOfTurnId),
    architectures: ['Qwen3MoeForCausalLM'],
    model_type: 'qwen3_moe',
    num_experts: 8,
    num_experts_per_tok: 2,
    norm_topk_prob: true,
    moe_intermediate_size: 128,
    decoder_sparse_step: 1,
    mlp_only_layers: [],
  };
}
