/**
 * One pre-norm decoder layer on one sequence, as a pure tfjs function of (x, params) so it can
 * be differentiated with tf.grads:
 *
 *   a = input_layernorm(x);          h = x + o_proj(Attention(a))
 *   f = post_attention_layernorm(h); out = h + SwiGLU(f)   (or the MoE block: moe-block.ts)
 *
 * Attention: GQA with causal masking, optional q/k biases, optional per-head q/k RMSNorm before
 * RoPE (Qwen3), in query chunks (chunked-attention.ts). Query heads of one KV group are stacked
 * as rows so one rank-2 matmul per KV head serves the whole group without repeating K/V. An
 * optional KV cache (`past`) holds
 * keys/values of earlier positions for incremental decoding.
 *
 * Projection weights in `p` are as stored, [out, in] (ops.ts linear); the MoE router and experts
 * are held transposed (weights.ts heldTransposed). The layer-wise backward recomputes the layer
 * with `recompute`: a dense MLP then runs in token-row chunks as one op that keeps none of its
 * [T, intermediate] activations for the gradient (chunked-mlp.ts).
 */
import * as tf from '@tensorflow/tfjs-core';
import { causalAttention } from './chunked-attention.ts';
import { chunkedSwiglu } from './chunked-mlp.ts';
import type { ModelSpec } from './config.ts';
import { attentionQueryChunk, mlpRowChunk, planMemory } from './memory-plan.ts';
import { hasRouter, moeBlock, type MoeOutput } from './moe-block.ts';
import { applyRope, linear, rmsNorm, swigluHidden } from './ops.ts';
import type { RopeTables } from './rope.ts';
import { optionalParam, param, type LayerParams } from './weights.ts';

/** Keys and values of all positions so far, [Hkv, S, d] each. */
export interface KvEntry {
  readonly k: tf.Tensor3D;
  readonly v: tf.Tensor3D;
}

export interface LayerOutput {
  readonly out: tf.Tensor2D;
  /** input_layernorm output (the q/k/v input), [T, hidden]. */
  readonly attnInput: tf.Tensor2D;
  /** post_attention_layernorm output (the gate/up input), [T, hidden]. */
  readonly ffnInput: tf.Tensor2D;
  /** The heads' attention context (the o_proj input), [T, heads·headDim]. */
  readonly attnContext: tf.Tensor2D;
  /** silu(gate)·up (the down_proj input), [T, intermediate]; absent on a sparse MoE layer and in a recompute. */
  readonly mlpHidden?: tf.Tensor2D;
  /** Routing, per-expert rows and expert hidden states (sparse MoE layers only). */
  readonly moe?: MoeOutput;
  /** Keys/values including this call's positions (past ++ new). */
  readonly kv: KvEntry;
  /**
   * Softmax attention weights, one [group, T, past+T] tensor per KV head: row-block g of KV head
   * j is query head j·group + g (RAIN's constraints read them). Recomputed whole on each call:
   * the layer itself only ever holds one query chunk's.
   */
  readonly attentionProbs: () => tf.Tensor3D[];
}

/**
 * Runs the layer on x [T, hidden] at positions past.length … past.length+T−1. `recompute`: the
 * layer-wise backward's run under tf.grads (the dense MLP in row chunks, no mlpHidden).
 */
export function decoderLayer(spec: ModelSpec, p: LayerParams, x: tf.Tensor2D, rope: RopeTables, past?: KvEntry, recompute = false): LayerOutput {
  const eps = spec.rmsNormEps;
  const proj = (name: string, input: tf.Tensor2D): tf.Tensor2D => linear(input, param(p, `${name}.weight`), optionalParam(p, `${name}.bias`));
  const attnInput = rmsNorm(x, param(p, 'input_layernorm.weight'), eps);
  const { context: attnContext, kv, probs: attentionProbs } = attention(spec, p, attnInput, rope, proj, past);
  const attnOut = proj('self_attn.o_proj', attnContext);
  const h = tf.add<tf.Tensor2D>(x, attnOut);
  const ffnInput = rmsNorm(h, param(p, 'post_attention_layernorm.weight'), eps);
  if (spec.moe !== undefined && hasRouter(p)) {
    const moe = moeBlock(spec.moe, p, ffnInput);
    return { out: tf.add<tf.Tensor2D>(h, moe.out), attnInput, ffnInput, attnContext, moe, kv, attentionProbs };
  }
  if (recompute) {
    const mlp = recomputedMlp(spec, p, ffnInput);
    return { out: tf.add<tf.Tensor2D>(h, mlp), attnInput, ffnInput, attnContext, kv, attentionProbs };
  }
  const mlpHidden = swigluHidden(ffnInput, (name, input) => proj(`mlp.${name}`, input));
  const mlp = proj('mlp.down_proj', mlpHidden);
  return { out: tf.add<tf.Tensor2D>(h, mlp), attnInput, ffnInput, attnContext, mlpHidden, kv, attentionProbs };
}

/** The dense MLP in row chunks sized by the memory plan (a [T, intermediate] tape does not fit wasm's heap at 4B shapes). */
function recomputedMlp(spec: ModelSpec, p: LayerParams, x: tf.Tensor2D): tf.Tensor2D {
  const weight = (name: string): tf.Tensor2D => param(p, `mlp.${name}.weight`);
  const bias = (name: string): tf.Tensor1D | undefined => optionalParam(p, `mlp.${name}.bias`);
  const gate = weight('gate_proj');
  const weights = { gate, up: weight('up_proj'), down: weight('down_proj'), gateBias: bias('gate_proj'), upBias: bias('up_proj'), downBias: bias('down_proj') };
  return chunkedSwiglu(x, weights, mlpRowChunk(planMemory(spec), gate.shape[0], x.shape[0]));
}

type Projection = (name: string, input: tf.Tensor2D) => tf.Tensor2D;

/** The heads' context before o_proj, the cache and the attention weights per KV head. */
function attention(spec: ModelSpec, p: LayerParams, a: tf.Tensor2D, rope: RopeTables, proj: Projection, past?: KvEntry): { context: tf.Tensor2D; kv: KvEntry; probs: () => tf.Tensor3D[] } {
  const { numHeads: nh, numKvHeads: nkv, headDim: d } = spec;
  const group = nh / nkv;
  const t = a.shape[0];
  const project = (name: string, heads: number): tf.Tensor3D => tf.reshape(proj(`self_attn.${name}`, a), [t, heads, d]);
  let q = project('q_proj', nh);
  let k = project('k_proj', nkv);
  const v = project('v_proj', nkv);
  if (spec.qkNorm) {
    q = rmsNorm(q, param(p, 'self_attn.q_norm.weight'), spec.rmsNormEps);
    k = rmsNorm(k, param(p, 'self_attn.k_norm.weight'), spec.rmsNormEps);
  }
  q = applyRope(q, rope.cos, rope.sin);
  k = applyRope(k, rope.cos, rope.sin);
  const kNew = tf.transpose(k, [1, 0, 2]);
  const vNew = tf.transpose(v, [1, 0, 2]);
  const kAll = past === undefined ? kNew : tf.concat([past.k, kNew], 1);
  const vAll = past === undefined ? vNew : tf.concat([past.v, vNew], 1);
  // In query chunks sized by the memory budget (chunked-attention.ts): whole [group·T, S] score
  // matrices for every head do not fit wasm's heap at 2,048 tokens.
  const queryChunk = attentionQueryChunk(planMemory(spec), group, t, kAll.shape[1]);
  const { context, probs } = causalAttention(q, kAll, vAll, queryChunk);
  return { context, kv: { k: kAll, v: vAll }, probs };
}
