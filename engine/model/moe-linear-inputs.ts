/**
 * The Linear inputs of a sparse MoE layer, for per-Linear input statistics (AIM, LEWIS) measured
 * as a forward hook on every nn.Linear of the per-expert model would see them:
 *
 *   mlp.gate (router)                ← the post-attention-norm output, every position
 *   mlp.experts.{e}.gate/up_proj     ← the same rows, only the tokens routed to expert e
 *   mlp.experts.{e}.down_proj        ← expert e's silu(gate)·up on those tokens
 *
 * An expert no token of the sequence reached has no entry (its hook never fires), so a mean
 * over sequences counts only the sequences that reached it.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { MoeOutput } from './moe-block.ts';
import { ROUTER_KEY, expertKey, type ExpertProjection } from './moe-weights.ts';

/** Relative module name (no `.weight`) → reduce(input rows). */
export function expertLinearInputs(ffnInput: tf.Tensor2D, moe: MoeOutput, reduce: (rows: tf.Tensor2D) => Float32Array): Map<string, Float32Array> {
  const module = (key: string): string => key.slice(0, -'.weight'.length);
  const out = new Map<string, Float32Array>([[module(ROUTER_KEY), reduce(ffnInput)]]);
  moe.rows.tokensOf.forEach((tokens, e) => {
    if (tokens.length === 0) return;
    const inputs = reduce(tf.gather<tf.Tensor2D>(ffnInput, tf.tensor1d(tokens, 'int32')));
    const set = (projection: ExpertProjection, value: Float32Array): void => void out.set(module(expertKey(e, projection)), value);
    set('gate_proj', inputs);
    set('up_proj', inputs);
    set('down_proj', reduce(moe.expertHidden(e)));
  });
  return out;
}
