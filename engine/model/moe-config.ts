/**
 * The mixture-of-experts facts of a Qwen3-MoE config.json (Qwen3MoeForCausalLM): how many
 * experts, how many each token is routed to, whether the chosen routing weights are
 * renormalised, the experts' inner width, and which layers keep a dense MLP instead.
 *
 * A layer is sparse iff it is not in mlp_only_layers and (layer + 1) % decoder_sparse_step == 0
 * (the rule of transformers' Qwen3MoeDecoderLayer). Qwen3-MoE has no shared expert.
 */
import type { ModelConfig } from '../io/checkpoint.ts';

export interface MoeSpec {
  readonly numExperts: number;
  /** Experts each token is routed to (top-k of the router softmax). */
  readonly expertsPerToken: number;
  /** Renormalise the k chosen router probabilities to sum to 1 (norm_topk_prob). */
  readonly normTopkProb: boolean;
  /** Inner width of one expert's SwiGLU (moe_intermediate_size). */
  readonly expertIntermediateSize: number;
  /** Layers that keep the dense MLP of width intermediate_size. */
  readonly mlpOnlyLayers: readonly number[];
  readonly decoderSparseStep: number;
}

/** Reads the MoE keys; `fail` throws a CheckpointError naming config.json. */
export function parseMoeSpec(config: ModelConfig, numLayers: number, fail: (message: string) => never): MoeSpec {
  const positive = (key: string, fallback?: number): number => {
    const value = config[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) fail(`"${key}" must be a positive integer (got ${JSON.stringify(value)})`);
    return value as number;
  };
  const numExperts = positive('num_experts');
  const expertsPerToken = positive('num_experts_per_tok');
  if (expertsPerToken > numExperts) fail(`"num_experts_per_tok" (${expertsPerToken}) exceeds "num_experts" (${numExperts})`);
  const onlyRaw = config['mlp_only_layers'] ?? [];
  if (!Array.isArray(onlyRaw) || onlyRaw.some((l) => typeof l !== 'number' || !Number.isInteger(l) || l < 0 || l >= numLayers)) {
    fail(`"mlp_only_layers" must be a list of layer indices in 0…${numLayers - 1} (got ${JSON.stringify(onlyRaw)})`);
  }
  const norm = config['norm_topk_prob'] ?? false;
  if (typeof norm !== 'boolean') fail(`"norm_topk_prob" must be true or false (got ${JSON.stringify(norm)})`);
  const shared = config['shared_expert_intermediate_size'];
  if (typeof shared === 'number' && shared > 0) fail('declares a shared expert (shared_expert_intermediate_size), which Qwen3-MoE does not have');
  return {
    numExperts,
    expertsPerToken,
    normTopkProb: norm as boolean,
    expertIntermediateSize: positive('moe_intermediate_size'),
    mlpOnlyLayers: onlyRaw as number[],
    decoderSparseStep: positive('decoder_sparse_step', 1),
  };
}

/** Whether decoder layer `layer` routes its MLP through experts. */
export function isSparseLayer(moe: MoeSpec | undefined, layer: number): moe is MoeSpec {
  return moe !== undefined && !moe.mlpOnlyLayers.includes(layer) && (layer + 1) % moe.decoderSparseStep === 0;
}
