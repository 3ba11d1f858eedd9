/**
 * ModelSpec: the architecture facts the runtime needs, read from a Hugging Face config.json.
 * Supported: Qwen3ForCausalLM (dense), Qwen3MoeForCausalLM (Qwen3 attention, mixture-of-experts
 * MLPs: moe-config.ts), Qwen2ForCausalLM, LlamaForCausalLM, NanbeigeForCausalLM (Llama layers
 * run num_loops times: loop-config.ts). Anything else is a CheckpointError naming config.json
 * and the architecture.
 *
 * Variations between the three:
 *   qwen3  per-head q_norm/k_norm (RMSNorm over head_dim, before RoPE); biases iff attention_bias
 *   qwen2  q/k/v biases always, o_proj none, no q/k norm
 *   llama  biases iff attention_bias (q/k/v/o) / mlp_bias (gate/up/down); optional llama3 RoPE scaling
 *
 * A key of the wrong type ("tie_word_embeddings": "false", a string rope_scaling) is an error, never
 * read as a default; an absent boolean is transformers' default for these classes, false (so a
 * config without tie_word_embeddings has its own lm_head, as transformers loads it).
 */
import { join } from 'node:path';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { ModelConfig } from '../io/checkpoint.ts';
import { parseLoopSpec, type LoopSpec } from './loop-config.ts';
import { parseMoeSpec, type MoeSpec } from './moe-config.ts';

export type ArchitectureFamily = 'qwen3' | 'qwen2' | 'llama';

export const SUPPORTED_ARCHITECTURES: Readonly<Record<string, ArchitectureFamily>> = {
  Qwen3ForCausalLM: 'qwen3',
  Qwen3MoeForCausalLM: 'qwen3',
  Qwen2ForCausalLM: 'qwen2',
  LlamaForCausalLM: 'llama',
  NanbeigeForCausalLM: 'llama',
};

/** Llama 3.1-style frequency-dependent rescaling of the RoPE inverse frequencies. */
export interface Llama3RopeScaling {
  readonly factor: number;
  readonly lowFreqFactor: number;
  readonly highFreqFactor: number;
  readonly originalMaxPositions: number;
}

export interface ModelSpec {
  readonly architecture: string;
  readonly family: ArchitectureFamily;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly vocabSize: number;
  readonly rmsNormEps: number;
  readonly ropeTheta: number;
  readonly ropeScaling: Llama3RopeScaling | null;
  readonly tiedEmbeddings: boolean;
  readonly qkNorm: boolean;
  readonly qkvBias: boolean;
  readonly oBias: boolean;
  readonly mlpBias: boolean;
  /** eos_token_id as a list (configs give a number or an array). */
  readonly eosTokenIds: readonly number[];
  /** Present for mixture-of-experts models (Qwen3MoeForCausalLM) only. */
  readonly moe?: MoeSpec;
  /** Present for looped models (NanbeigeForCausalLM) only. */
  readonly loop?: LoopSpec;
}

export function parseModelSpec(config: ModelConfig, dir = '.'): ModelSpec {
  const path = join(dir, 'config.json');
  const fail = (message: string): never => {
    throw new CheckpointError('config', path, message);
  };
  const archs = config['architectures'];
  const architecture = Array.isArray(archs) && typeof archs[0] === 'string' ? archs[0] : undefined;
  if (architecture === undefined) fail('has no "architectures" entry naming the model class');
  const family = SUPPORTED_ARCHITECTURES[architecture as string];
  if (family === undefined) {
    fail(`declares architecture "${architecture}", which the model runtime does not support (supported: ${Object.keys(SUPPORTED_ARCHITECTURES).join(', ')})`);
  }
  const int = (key: string, fallback?: number): number => {
    const value = config[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) fail(`"${key}" must be a positive integer (got ${JSON.stringify(value)})`);
    return value as number;
  };
  const num = (value: unknown, key: string): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) fail(`"${key}" must be a positive number (got ${JSON.stringify(value)})`);
    return value as number;
  };
  // transformers' own default (false, for every supported class) when absent; a string such as
  // "false" is refused rather than read as one or the other.
  const flag = (key: string): boolean => {
    const value = config[key] ?? false;
    if (typeof value !== 'boolean') fail(`"${key}" must be true or false (got ${JSON.stringify(value)})`);
    return value as boolean;
  };

  const hiddenSize = int('hidden_size');
  const numHeads = int('num_attention_heads');
  const numKvHeads = int('num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0) fail(`num_attention_heads (${numHeads}) is not a multiple of num_key_value_heads (${numKvHeads})`);
  const headDim = config['head_dim'] == null ? hiddenSize / numHeads : int('head_dim');
  if (!Number.isInteger(headDim) || headDim % 2 !== 0) fail(`head_dim ${headDim} must be an even integer`);
  const act = config['hidden_act'] ?? 'silu';
  if (act !== 'silu') fail(`uses hidden_act "${String(act)}"; only "silu" (SwiGLU) is supported`);
  if (flag('use_sliding_window')) fail('enables use_sliding_window, which the model runtime does not support');

  const rope = ropeSettings(config, fail);
  const eos = config['eos_token_id'] ?? [];
  const eosTokenIds = Array.isArray(eos) ? eos : [eos];
  if (!eosTokenIds.every((id) => Number.isSafeInteger(id) && (id as number) >= 0)) fail(`"eos_token_id" must be a token id or a list of them (got ${JSON.stringify(eos)})`);
  const numLayers = int('num_hidden_layers');
  return {
    architecture: architecture as string,
    family: family as ArchitectureFamily,
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    numLayers,
    numHeads,
    numKvHeads,
    headDim,
    vocabSize: int('vocab_size'),
    rmsNormEps: num(config['rms_norm_eps'] ?? 1e-6, 'rms_norm_eps'),
    ropeTheta: num(rope.theta, 'rope_theta'),
    ropeScaling: rope.scaling,
    tiedEmbeddings: flag('tie_word_embeddings'),
    qkNorm: family === 'qwen3',
    qkvBias: family === 'qwen2' || flag('attention_bias'),
    oBias: family !== 'qwen2' && flag('attention_bias'),
    mlpBias: family === 'llama' && flag('mlp_bias'),
    eosTokenIds: eosTokenIds as number[],
    ...(architecture === 'Qwen3MoeForCausalLM' ? { moe: parseMoeSpec(config, numLayers, fail) } : {}),
    ...(architecture === 'NanbeigeForCausalLM' ? { loop: parseLoopSpec(config, fail) } : {}),
  };
}

/** rope_theta and rope_scaling from the v4 top-level fields or the v5 `rope_parameters` object. */
function ropeSettings(config: ModelConfig, fail: (m: string) => never): { theta: unknown; scaling: Llama3RopeScaling | null } {
  const params = config['rope_parameters'];
  const nested = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : undefined;
  const theta = nested?.['rope_theta'] ?? config['rope_theta'] ?? 10000;
  const rawScaling = nested ?? config['rope_scaling'] ?? undefined;
  if (rawScaling !== undefined && (typeof rawScaling !== 'object' || Array.isArray(rawScaling))) fail(`"rope_scaling" must be an object or null (got ${JSON.stringify(rawScaling)})`);
  const scalingRaw = rawScaling as Record<string, unknown> | undefined;
  const type = scalingRaw?.['rope_type'] ?? scalingRaw?.['type'] ?? 'default';
  if (config['partial_rotary_factor'] != null && config['partial_rotary_factor'] !== 1) fail('uses partial_rotary_factor, which the model runtime does not support');
  if (type === 'default' || scalingRaw === undefined) return { theta, scaling: null };
  if (type !== 'llama3') fail(`uses rope type ${JSON.stringify(type)}; supported: default, llama3`);
  const s = scalingRaw as Record<string, unknown>;
  // transformers reads all four keys (a missing one is its KeyError): no default stands in for one.
  const n = (key: string): number => {
    if (typeof s[key] !== 'number' || !Number.isFinite(s[key]) || (s[key] as number) <= 0) fail(`llama3 rope_scaling needs "${key}" as a positive number (got ${JSON.stringify(s[key])})`);
    return s[key] as number;
  };
  return {
    theta,
    scaling: {
      factor: n('factor'),
      lowFreqFactor: n('low_freq_factor'),
      highFreqFactor: n('high_freq_factor'),
      originalMaxPositions: n('original_max_position_embeddings'),
    },
  };
}
