/**
 * linearInputMeans: per decoder layer and sequence, the mean over ALL of the sequence's positions
 * of |x| at the input of every Linear layer of the block, streamed layer by layer (the AIM
 * importance of the reference measures exactly these: a forward hook on each nn.Linear but the
 * embedding and lm_head).
 *
 *   q/k/v_proj ← input_layernorm output      o_proj ← the heads' attention context
 *   gate/up_proj ← post_attention_layernorm   down_proj ← silu(gate)·up
 *   (sparse MoE layers: the router and each expert's Linears, moe-linear-inputs.ts)
 *
 * Projections that read the same tensor get the same vector (one reduction, shared). Means are
 * taken in fp32 by the runtime; nothing is kept after the consumer returns. `statistic` 'square'
 * gives the mean of x² instead, what LEWIS's Wanda score reads (E[x_j²]). A looped model
 * (loop-config.ts) gives one set per (pass, layer, sequence), tagged with the pass.
 * linearInputTap is the same reading as a tap (tapped-forward.ts), for a pass shared with others.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { LayerOutput } from './decoder-layer.ts';
import type { ModelContext } from './forward.ts';
import { expertLinearInputs } from './moe-linear-inputs.ts';
import { forwardTapped, type LayerTap } from './tapped-forward.ts';

export interface LinearInputMeans {
  readonly layer: number;
  /** Pass of the decoder stack (0 unless the model is looped). */
  readonly pass: number;
  /** Index of the sequence in the request. */
  readonly sequence: number;
  /** `model.layers.{layer}.self_attn.q_proj` … → mean |x_j| over the sequence's positions. */
  readonly means: ReadonlyMap<string, Float32Array>;
}

/** Which LayerOutput tensor each projection of a block reads. */
const LINEAR_INPUTS: readonly (readonly [string, keyof Pick<LayerOutput, 'attnInput' | 'attnContext' | 'ffnInput' | 'mlpHidden'>])[] = [
  ['self_attn.q_proj', 'attnInput'], ['self_attn.k_proj', 'attnInput'], ['self_attn.v_proj', 'attnInput'],
  ['self_attn.o_proj', 'attnContext'],
  ['mlp.gate_proj', 'ffnInput'], ['mlp.up_proj', 'ffnInput'],
  ['mlp.down_proj', 'mlpHidden'],
];
const ATTENTION_INPUTS = LINEAR_INPUTS.filter(([projection]) => projection.startsWith('self_attn.'));

/** The per-position value a mean is taken of: |x| (AIM) or x² (LEWIS). */
export type LinearInputStatistic = 'abs' | 'square';

/** The tap of sequence `sequence` (its index in the caller's request): its means at every Linear input. */
export function linearInputTap(ids: ArrayLike<number>, sequence: number, statistic: LinearInputStatistic, consumer: (m: LinearInputMeans) => void | Promise<void>): LayerTap {
  if (ids.length === 0) throw new RangeError(`sequence ${sequence} is empty: a mean over no positions is undefined`);
  return (output, layer, pass) => {
    const reduced = new Map<string, Float32Array>();
    const means = new Map<string, Float32Array>();
    const reduce = (x: tf.Tensor2D): Float32Array => tf.mean(statistic === 'abs' ? tf.abs(x) : tf.square(x), 0).dataSync() as Float32Array;
    // A sparse MoE layer's MLP Linears are the router and each expert's (moe-linear-inputs.ts).
    for (const [projection, input] of output.moe === undefined ? LINEAR_INPUTS : ATTENTION_INPUTS) {
      let mean = reduced.get(input);
      if (mean === undefined) {
        mean = reduce(output[input] as tf.Tensor2D);
        reduced.set(input, mean);
      }
      means.set(`model.layers.${layer}.${projection}`, mean);
    }
    if (output.moe !== undefined) {
      for (const [module, mean] of expertLinearInputs(output.ffnInput, output.moe, reduce)) means.set(`model.layers.${layer}.${module}`, mean);
    }
    return () => consumer({ layer, pass, sequence, means });
  };
}

export async function linearInputMeans(
  ctx: ModelContext, sequences: readonly ArrayLike<number>[], consumer: (m: LinearInputMeans) => void | Promise<void>, statistic: LinearInputStatistic = 'abs',
): Promise<void> {
  const tapped = sequences.map((ids, i) => ({ ids, tap: linearInputTap(ids, i, statistic, consumer) }));
  await forwardTapped(ctx, tapped);
}
