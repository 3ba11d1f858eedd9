/**
 * NanbeigeForCausalLM config.json → ModelSpec.loop: the shipped Nanbeige4.2-3B values, the
 * committed tiny looped checkpoint through Checkpoint.open, and one refusal per extra that
 * modeling_nanbeige.py implements but the runtime does not (each error names config.json and the key).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { parseModelSpec } from './config.ts';

/** architectures.md §6.2, with the extras written out as off the way the shipped config does. */
const NANBEIGE_42_3B = {
  architectures: ['NanbeigeForCausalLM'], model_type: 'nanbeige', hidden_size: 3072, num_hidden_layers: 22,
  num_loops: 2, skip_loop_final_norm: false, num_attention_heads: 48, num_key_value_heads: 8, head_dim: 128,
  intermediate_size: 10752, hidden_act: 'silu', rms_norm_eps: 1e-5, rope_theta: 70000000, rope_scaling: null,
  vocab_size: 166144, tie_word_embeddings: false, attention_bias: false, mlp_bias: false, eos_token_id: 166101,
  enable_double_loop_split: false, enable_hyper_connection: false, enable_mhc: false, enable_depth_attention: false,
  emb_neighbor_num: null, loop_loss_weights: null, qk_layernorm: false,
};

describe('NanbeigeForCausalLM config', () => {
  it('reads Nanbeige4.2-3B: two passes with a norm between them, head_dim 128 ≠ hidden/heads', () => {
    expect(parseModelSpec(NANBEIGE_42_3B)).toMatchObject({
      family: 'llama', numLayers: 22, numHeads: 48, numKvHeads: 8, headDim: 128, hiddenSize: 3072, tiedEmbeddings: false,
      qkNorm: false, qkvBias: false, mlpBias: false, ropeTheta: 7e7, rmsNormEps: 1e-5, loop: { numLoops: 2, normBetweenPasses: true },
    });
  });

  it('skip_loop_final_norm true leaves no norm between passes; num_loops defaults to 1', () => {
    expect(parseModelSpec({ ...NANBEIGE_42_3B, skip_loop_final_norm: true, num_loops: 3 }).loop).toEqual({ numLoops: 3, normBetweenPasses: false });
    const rest: Record<string, unknown> = { ...NANBEIGE_42_3B };
    delete rest['num_loops'];
    expect(parseModelSpec(rest).loop).toEqual({ numLoops: 1, normBetweenPasses: true });
  });

  it('gives other architectures no loop', () => {
    expect(parseModelSpec({ ...NANBEIGE_42_3B, architectures: ['LlamaForCausalLM'], model_type: 'llama' }).loop).toBeUndefined();
  });

  it('opens the committed tiny looped checkpoint', async () => {
    const dir = join(import.meta.dirname, 'testdata', 'nanbeige_looped');
    const checkpoint = await Checkpoint.open(dir);
    try {
      expect(parseModelSpec(checkpoint.config, dir)).toMatchObject({ headDim: 16, hiddenSize: 32, numHeads: 4, loop: { numLoops: 2, normBetweenPasses: true } });
    } finally {
      await checkpoint.close();
    }
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config['architectures']).toEqual(['NanbeigeForCausalLM']);
  });

  const REFUSALS: readonly [feature: string, key: string, value: unknown][] = [
    ['LoopSplit', 'enable_double_loop_split', true],
    ['LoopSplit middle layers', 'loop_middle_layers', 11],
    ['LoopSplit K/V sharing', 'loop_share_kv', true],
    ['hyper-connections', 'enable_hyper_connection', true],
    ['mHC', 'enable_mhc', true],
    ['mHC identity mixing', 'enable_h_res_identity', true],
    ['per-pass mHC modules', 'mhc_diff_for_loop', true],
    ['depth attention', 'enable_depth_attention', true],
    ['n-gram embeddings', 'emb_neighbor_num', 2],
    ['n-gram layer fusion', 'insert_ngram_layer_idx', [3]],
    ['n-gram fusion in all layers', 'ngram_insert_all_layers', true],
    ['per-loop losses', 'loop_loss_weights', [0.5]],
    ['q/k layernorm', 'qk_layernorm', true],
  ];

  it.each(REFUSALS)('refuses %s, naming config.json and "%s"', (_feature, key, value) => {
    const config = { ...NANBEIGE_42_3B, [key]: value };
    expect(() => parseModelSpec(config, '/models/nanbeige')).toThrow(CheckpointError);
    expect(() => parseModelSpec(config, '/models/nanbeige')).toThrow(new RegExp(`/models/nanbeige/config\\.json: sets "${key}"`));
  });

  it('refuses a num_loops or skip_loop_final_norm it cannot read', () => {
    expect(() => parseModelSpec({ ...NANBEIGE_42_3B, num_loops: 0 })).toThrow(/"num_loops" must be a positive integer \(got 0\)/);
    expect(() => parseModelSpec({ ...NANBEIGE_42_3B, num_loops: 1.5 })).toThrow(/"num_loops"/);
    expect(() => parseModelSpec({ ...NANBEIGE_42_3B, skip_loop_final_norm: 'no' })).toThrow(/"skip_loop_final_norm" must be true or false/);
  });
});
