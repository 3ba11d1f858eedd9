/**
 * The sparse MoE MLP of one Qwen3-MoE decoder layer (Qwen3MoeSparseMoeBlock), on the layer's
 * post-attention-norm output f [T, hidden]:
 *
 *   p = softmax(f · W_routerᵀ)  over all experts        (router: mlp.gate.weight [E, hidden])
 *   chosen = top-k of p per token                         (a constant: moe-routing.ts)
 *   w = p at the chosen experts, 0 elsewhere; if norm_topk_prob, w /= Σ w
 *   out = Σ_chosen w · SwiGLU_e(f)                        (moe-experts.ts)
 *
 * The router path is plain differentiable tfjs, so tf.grads gives the router its own gradient
 * through the chosen probabilities (and the renormalisation).
 *
 * Parameters are keyed like a per-expert checkpoint, relative to the layer:
 * mlp.gate.weight and mlp.experts.{e}.{gate,up,down}_proj.weight, held transposed, [in, out]
 * (weights.ts heldTransposed; the dense projections stay as stored), so x · W; weights.ts maps
 * fused checkpoints onto the same keys.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { MoeSpec } from './moe-config.ts';
import { expertMixture, expertPass, type ExpertWeights } from './moe-experts.ts';
import { expertRows, routeTokens, selectionMask, type ExpertRows, type MoeRouting } from './moe-routing.ts';
import { ROUTER_KEY, expertKey } from './moe-weights.ts';
import { param, type LayerParams } from './weights.ts';

/** A layer whose parameters include a router runs the MoE block instead of the dense MLP. */
export function hasRouter(p: LayerParams): boolean {
  return p[ROUTER_KEY] !== undefined;
}

export interface MoeOutput {
  readonly out: tf.Tensor2D;
  readonly routing: MoeRouting;
  /** The tokens routed to each expert. */
  readonly rows: ExpertRows;
  /**
   * silu(gate)·up of expert e on its routed rows (its down_proj input), [rows, inner];
   * recomputed on each call (the block itself keeps none). Needs the layer's weights alive.
   */
  readonly expertHidden: (expert: number) => tf.Tensor2D;
}

export function moeBlock(moe: MoeSpec, p: LayerParams, f: tf.Tensor2D): MoeOutput {
  const tokens = f.shape[0];
  const probs = tf.softmax<tf.Tensor2D>(tf.matMul(f, param<tf.Tensor2D>(p, ROUTER_KEY)));
  const routing = routeTokens(probs.dataSync() as Float32Array, tokens, moe);
  let weights = tf.mul<tf.Tensor2D>(probs, tf.tensor2d(selectionMask(routing), [tokens, moe.numExperts]));
  if (moe.normTopkProb) weights = tf.div<tf.Tensor2D>(weights, tf.sum(weights, -1, true));
  const experts = Array.from({ length: moe.numExperts }, (_, e): ExpertWeights => ({
    gate: param(p, expertKey(e, 'gate_proj')),
    up: param(p, expertKey(e, 'up_proj')),
    down: param(p, expertKey(e, 'down_proj')),
  }));
  const rows = expertRows(routing);
  return {
    out: expertMixture(routing, rows, f, weights, experts),
    routing,
    rows,
    expertHidden: (e) => expertPass(f, rows.tokensOf[e] as Int32Array, experts[e] as ExpertWeights).hidden,
  };
}
