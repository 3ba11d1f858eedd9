import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { initBackend } from '../tensor/backend.ts';
import { loadCausalLM } from './causal-lm.ts';
import { parseModelSpec } from './config.ts';
import { tinyConfig, writeTinyCheckpoint } from './testing/tiny-checkpoint.ts';
import type { WeightSource } from './weights.ts';

const QWEN3_4B = {
  architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', hidden_size: 2560, intermediate_size: 9728,
  num_hidden_layers: 36, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128, hidden_act: 'silu',
  rms_norm_eps: 1e-6, rope_theta: 5000000, rope_scaling: null, attention_bias: false, tie_word_embeddings: true,
  vocab_size: 151936, eos_token_id: 151645, use_sliding_window: false,
};

describe('config.json → ModelSpec', () => {
  it('reads Qwen3-4B-2507', () => {
    expect(parseModelSpec(QWEN3_4B)).toMatchObject({
      family: 'qwen3', hiddenSize: 2560, numLayers: 36, numHeads: 32, numKvHeads: 8, headDim: 128, ropeTheta: 5e6,
      ropeScaling: null, tiedEmbeddings: true, qkNorm: true, qkvBias: false, oBias: false, eosTokenIds: [151645],
    });
  });

  it('reads rope_theta from rope_parameters (transformers v5)', () => {
    const rest: Record<string, unknown> = { ...QWEN3_4B };
    delete rest['rope_theta'];
    expect(parseModelSpec({ ...rest, rope_parameters: { rope_type: 'default', rope_theta: 1e6 } }).ropeTheta).toBe(1e6);
  });

  it('Qwen2: q/k/v biases, no q/k norm, head_dim from hidden/heads', () => {
    const spec = parseModelSpec({ ...tinyConfig({ family: 'qwen2' }), head_dim: undefined });
    expect(spec).toMatchObject({ family: 'qwen2', qkvBias: true, oBias: false, qkNorm: false, headDim: 8 });
  });

  it('Llama: attention_bias / mlp_bias switch biases; llama3 RoPE scaling is parsed', () => {
    const spec = parseModelSpec({
      ...tinyConfig({ family: 'llama' }), attention_bias: true, mlp_bias: true, eos_token_id: [128001, 128009],
      rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 },
    });
    expect(spec).toMatchObject({ qkvBias: true, oBias: true, mlpBias: true, qkNorm: false, eosTokenIds: [128001, 128009] });
    expect(spec.ropeScaling).toEqual({ factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 });
  });

  it('names config.json and the architecture when it is unsupported', () => {
    const config = { ...QWEN3_4B, architectures: ['Qwen3NextForCausalLM'] };
    expect(() => parseModelSpec(config, '/models/next')).toThrow(CheckpointError);
    expect(() => parseModelSpec(config, '/models/next')).toThrow(/\/models\/next\/config\.json.*"Qwen3NextForCausalLM".*not support/);
  });

  it('rejects unsupported variations clearly', () => {
    expect(() => parseModelSpec({ ...QWEN3_4B, rope_scaling: { rope_type: 'yarn', factor: 4 } })).toThrow(/rope type "yarn"/);
    expect(() => parseModelSpec({ ...QWEN3_4B, num_key_value_heads: 5 })).toThrow(/not a multiple/);
    expect(() => parseModelSpec({ ...QWEN3_4B, hidden_act: 'gelu' })).toThrow(/hidden_act "gelu"/);
    expect(() => parseModelSpec({ ...QWEN3_4B, use_sliding_window: true })).toThrow(/use_sliding_window/);
    expect(() => parseModelSpec({ ...QWEN3_4B, hidden_size: 0 })).toThrow(/"hidden_size" must be a positive integer/);
  });

  it('reads an absent tie_word_embeddings as transformers does (false: lm_head is its own tensor)', () => {
    const rest: Record<string, unknown> = { ...QWEN3_4B };
    delete rest['tie_word_embeddings'];
    expect(parseModelSpec(rest).tiedEmbeddings).toBe(false);
    expect(parseModelSpec({ ...rest, tie_word_embeddings: null }).tiedEmbeddings).toBe(false);
  });

  it('refuses a config value of the wrong type instead of reading it as a default', () => {
    for (const key of ['tie_word_embeddings', 'attention_bias', 'use_sliding_window']) {
      expect(() => parseModelSpec({ ...QWEN3_4B, [key]: 'false' }, '/m')).toThrow(new RegExp(`/m/config\\.json: "${key}" must be true or false \\(got "false"\\)`));
    }
    expect(() => parseModelSpec({ ...tinyConfig({ family: 'llama' }), mlp_bias: 1 })).toThrow(/"mlp_bias" must be true or false \(got 1\)/);
    expect(() => parseModelSpec({ ...QWEN3_4B, eos_token_id: '151645' })).toThrow(/"eos_token_id" must be a token id or a list of them \(got "151645"\)/);
    expect(() => parseModelSpec({ ...QWEN3_4B, eos_token_id: [151645, -1] })).toThrow(/"eos_token_id"/);
    expect(() => parseModelSpec({ ...QWEN3_4B, rope_scaling: 'linear' })).toThrow(/"rope_scaling" must be an object or null \(got "linear"\)/);
    expect(() => parseModelSpec({ ...QWEN3_4B, rope_scaling: [] })).toThrow(/"rope_scaling" must be an object or null/);
  });

  it('needs every llama3 rope_scaling key as a positive number (transformers has no defaults for them)', () => {
    const llama3 = { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 };
    expect(parseModelSpec({ ...QWEN3_4B, rope_scaling: llama3 }).ropeScaling).toEqual({ factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 });
    expect(() => parseModelSpec({ ...QWEN3_4B, rope_scaling: { ...llama3, factor: undefined } })).toThrow(/llama3 rope_scaling needs "factor" as a positive number \(got undefined\)/);
    expect(() => parseModelSpec({ ...QWEN3_4B, rope_scaling: { ...llama3, factor: '32' } })).toThrow(/needs "factor" as a positive number \(got "32"\)/);
    expect(() => parseModelSpec({ ...QWEN3_4B, rope_scaling: { ...llama3, original_max_position_embeddings: 0 } })).toThrow(/"original_max_position_embeddings"/);
  });

  it('loadCausalLM fails on an unsupported checkpoint and on a tensor whose shape disagrees', async () => {
    await initBackend('wasm');
    const dir = await writeTinyCheckpoint({ family: 'qwen3' });
    const checkpoint = await Checkpoint.open(dir);
    const source = (config: Record<string, unknown>): WeightSource => ({
      dir, config, tensors: checkpoint.tensors, tensor: (n) => checkpoint.tensor(n), readFloat32: (n) => checkpoint.readFloat32(n),
    });
    try {
      expect(() => loadCausalLM(source({ ...checkpoint.config, architectures: ['MambaForCausalLM'] }))).toThrow(/config\.json.*"MambaForCausalLM"/);
      const wrong = loadCausalLM(source({ ...checkpoint.config, intermediate_size: 40 }));
      await expect(wrong.forwardLogits([1, 2])).rejects.toThrow(/mlp\.gate_proj\.weight.*config\.json implies \[40, 32\]/);
    } finally {
      await checkpoint.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
