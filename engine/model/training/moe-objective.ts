/**
 * What a Qwen3-MoE model trains on: the masked cross-entropy of the whole-model graph (whose
 * MoE block already gives every routed expert and the router their gradients: moe-block.ts,
 * moe-experts.ts), plus, with a coefficient above 0, a load-balancing term per sparse layer and
 * sequence (the Switch-Transformer / transformers `load_balancing_loss_func` form):
 *
 *   aux = E · Σ_e f_e · P_e      f_e = share of the sequence's tokens routed to e (a constant),
 *                                P_e = mean router probability of e over the sequence
 *
 * It is k at a uniform routing and grows as the router concentrates on few experts; its
 * gradient flows through P_e (the router, and the router's input from the layers below). The objective also counts the tokens each expert
 * received, so a training run can say whether every expert stayed in use.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { MoeRouting } from '../moe-routing.ts';
import { ROUTER_KEY } from '../moe-weights.ts';
import type { LossSequence } from '../layer-grads.ts';
import { param } from '../weights.ts';
import { wholeModelLoss } from '../whole-model.ts';
import type { TrainableModel } from './trainable-model.ts';

/** The routed share of each expert (k slots per token counted), as a constant [E]. */
function routedShare(routing: MoeRouting): Float32Array {
  const share = new Float32Array(routing.numExperts);
  for (const expert of routing.experts) share[expert] = (share[expert] as number) + 1 / routing.tokens;
  return share;
}

/** E · Σ_e f_e · P_e for one layer on one sequence; `router` in compute layout [hidden, E]. */
export function loadBalancingLoss(ffnInput: tf.Tensor2D, router: tf.Tensor2D, routing: MoeRouting): tf.Scalar {
  const meanProbability = tf.mean(tf.softmax(tf.matMul(ffnInput, router)), 0);
  return tf.mul(tf.sum(tf.mul(meanProbability, tf.tensor1d(routedShare(routing)))), routing.numExperts);
}

export class MoeObjective {
  /** Tokens routed to each expert (k slots per token) per layer since the last takeUsage() (all 0 on a dense layer). */
  private usage: Float64Array[];

  constructor(readonly model: TrainableModel, readonly balanceCoefficient: number) {
    const moe = model.spec.moe;
    if (moe === undefined) throw new Error(`MoeObjective needs a Qwen3-MoE config (got ${model.spec.architecture})`);
    this.usage = this.emptyUsage();
  }

  get params(): ReadonlyMap<string, tf.Variable> {
    return this.model.params;
  }

  /** Mean target cross-entropy over the batch plus balanceCoefficient × the mean aux term over (layer, sequence). Call inside tf.tidy / grads. */
  loss(batch: readonly LossSequence[]): tf.Scalar {
    const aux: tf.Scalar[] = [];
    const crossEntropy = wholeModelLoss(this.model.spec, (name) => this.model.params.get(name) as tf.Variable, batch, (layer, output, p) => {
      if (output.moe === undefined) return;
      const counts = this.usage[layer] as Float64Array;
      for (const expert of output.moe.routing.experts) counts[expert] = (counts[expert] as number) + 1;
      if (this.balanceCoefficient > 0) aux.push(loadBalancingLoss(output.ffnInput, param<tf.Tensor2D>(p, ROUTER_KEY), output.moe.routing));
    });
    if (aux.length === 0) return crossEntropy;
    return tf.add(crossEntropy, tf.mul(tf.div(tf.addN(aux), aux.length), this.balanceCoefficient));
  }

  /** Each layer's share of routed tokens per expert since the last call (all 0 for a dense layer), then resets the counts. */
  takeUsage(): number[][] {
    const shares = this.usage.map((counts) => {
      const total = counts.reduce((a, b) => a + b, 0);
      return Array.from(counts, (n) => (total === 0 ? 0 : n / total));
    });
    this.usage = this.emptyUsage();
    return shares;
  }

  private emptyUsage(): Float64Array[] {
    const { spec } = this.model;
    return Array.from({ length: spec.numLayers }, () => new Float64Array(spec.moe?.numExperts ?? 0));
  }
}
