/**
 * One pre-norm decoder layer on one sequence, as a pure tfjs function of (x, params) so it can
 * be differentiated with tf.grads:
 *
 *   a = input_layernorm(x);          h = x + o_proj(Attention(a))
 *   f = post_attention_layernorm(h); out = h + SwiGLU(f)
 *
 * Attention: GQA with causal masking, optional q/k biases, optional per-head q/k RMSNorm before
 * RoPE (Qwen3). Query heads of one KV group are laid out contiguously ([Hkv, g·T, d]) so one
 * batched matmul per KV head serves the whole group without repeating K/V. An optional KV cache
 * (`past`) holds keys/values of earlier positions for incremental decoding.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ModelSpec } from './config.ts';
import { applyRope, linear, rmsNorm, swiglu } from './ops.ts';
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
  /** Keys/values including this call's positions (past ++ new). */
  readonly kv: KvEntry;
}

/** Runs the layer on x [T, hidden] at positions past.length … past.length+T−1. */
export function decoderLayer(spec: ModelSpec, p: LayerParams, x: tf.Tensor2D, rope: RopeTables, past?: KvEntry): LayerOutput {
  const eps = spec.rmsNormEps;
  const attnInput = rmsNorm(x, param(p, 'input_layernorm.weight'), eps);
  const { out: attnOut, kv } = attention(spec, p, attnInput, rope, past);
  const h = tf.add<tf.Tensor2D>(x, attnOut);
  const ffnInput = rmsNorm(h, param(p, 'post_attention_layernorm.weight'), eps);
  const mlp = swiglu(ffnInput, param(p, 'mlp.gate_proj.weight'), param(p, 'mlp.up_proj.weight'), param(p, 'mlp.down_proj.weight'), {
    gate: optionalParam(p, 'mlp.gate_proj.bias'),
    up: optionalParam(p, 'mlp.up_proj.bias'),
    down: optionalParam(p, 'mlp.down_proj.bias'),
  });
  return { out: tf.add<tf.Tensor2D>(h, mlp), attnInput, ffnInput, kv };
}

function attention(spec: ModelSpec, p: LayerParams, a: tf.Tensor2D, rope: RopeTables, past?: KvEntry): { out: tf.Tensor2D; kv: KvEntry } {
  const { numHeads: nh, numKvHeads: nkv, headDim: d } = spec;
  const group = nh / nkv;
  const t = a.shape[0];
  const project = (name: string, heads: number): tf.Tensor3D =>
    tf.reshape(linear(a, param(p, `self_attn.${name}.weight`), optionalParam(p, `self_attn.${name}.bias`)), [t, heads, d]);
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
  const pastLength = past === undefined ? 0 : past.k.shape[1];
  const total = pastLength + t;

  const qGrouped = tf.reshape(tf.transpose(q, [1, 0, 2]), [nkv, group * t, d]);
  const scores = tf.reshape(tf.mul(tf.matMul(qGrouped, kAll, false, true), 1 / Math.sqrt(d)), [nkv, group, t, total]);
  const masked = t === 1 ? scores : tf.add<tf.Tensor4D>(scores, causalMask(t, pastLength));
  const probs = tf.reshape(tf.softmax(masked), [nkv, group * t, total]);
  const context = tf.reshape<tf.Rank.R2>(tf.transpose(tf.reshape(tf.matMul(probs, vAll), [nh, t, d]), [1, 0, 2]), [t, nh * d]);
  const out = linear(context, param(p, 'self_attn.o_proj.weight'), optionalParam(p, 'self_attn.o_proj.bias'));
  return { out, kv: { k: kAll, v: vAll } };
}

/** Additive mask [T, past+T]: query i (position past+i) sees keys 0 … past+i. */
function causalMask(t: number, pastLength: number): tf.Tensor2D {
  const total = pastLength + t;
  const values = new Float32Array(t * total);
  for (let i = 0; i < t; i++) values.fill(-1e9, i * total + pastLength + i + 1, (i + 1) * total);
  return tf.tensor2d(values, [t, total]);
}
