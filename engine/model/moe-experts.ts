/**
 * expertMixture: Σ_k w[t, e_k] · Expert_{e_k}(x_t) over each token's routed experts, as one tfjs
 * op with a hand-written backward (a custom gradient):
 *
 *   - an expert runs only on the rows of the tokens routed to it, so its weights get gradients
 *     from exactly those tokens, and an expert no token chose gets an exact zero gradient
 *     (tf.grads needs a gradient for every input, which autodiff of a skipped expert cannot give);
 *   - d/d routing weights [T, E] is Σ_h dOut[t]·Expert_e(x_t) at the chosen (t, e), 0 elsewhere:
 *     the router's own gradient then flows through the differentiable softmax / renormalisation
 *     that produced the weights (moe-block.ts);
 *   - rows are moved with forward-only gathers (tfjs's gather gradient needs a kernel wasm lacks).
 *
 * The backward recomputes each expert's SwiGLU from its rows instead of saving it.
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMul } from '../tensor/matmul.ts';
import type { ExpertRows, MoeRouting } from './moe-routing.ts';

/** One expert's weights in compute layout: gate/up [hidden, inner], down [inner, hidden]. */
export interface ExpertWeights {
  readonly gate: tf.Tensor2D;
  readonly up: tf.Tensor2D;
  readonly down: tf.Tensor2D;
}

interface ExpertPass {
  readonly x: tf.Tensor2D;
  readonly gate: tf.Tensor2D;
  readonly sig: tf.Tensor2D;
  readonly up: tf.Tensor2D;
  readonly hidden: tf.Tensor2D;
  readonly y: tf.Tensor2D;
}

/** Expert `w` on the rows `tokens` of f: its inputs, SwiGLU parts and outputs. */
export function expertPass(f: tf.Tensor2D, tokens: Int32Array, w: ExpertWeights): ExpertPass {
  const x = tf.gather<tf.Tensor2D>(f, tf.tensor1d(tokens, 'int32'));
  const gate: tf.Tensor2D = tf.matMul(x, w.gate);
  const sig = tf.sigmoid<tf.Tensor2D>(gate);
  const up: tf.Tensor2D = tf.matMul(x, w.up);
  const hidden = tf.mul<tf.Tensor2D>(tf.mul(gate, sig), up);
  return { x, gate, sig, up, hidden, y: tf.matMul(hidden, w.down) };
}

/** Routing weights of expert e's rows, [n, 1], from the dense [T, E] weights. */
function rowWeights(weights: tf.Tensor2D, tokens: Int32Array, expert: number): tf.Tensor2D {
  const numExperts = weights.shape[1];
  return tf.reshape(tf.gather(tf.reshape(weights, [-1]), tf.tensor1d(tokens.map((t) => t * numExperts + expert), 'int32')), [tokens.length, 1]);
}

/** Stacked per-expert rows back to their tokens: out[t] = Σ_j stacked[rowOf[t·k + j]]. */
function gatherToTokens(stacked: tf.Tensor2D[], rows: ExpertRows, tokens: number, k: number): tf.Tensor2D {
  const all = stacked.length === 1 ? (stacked[0] as tf.Tensor2D) : tf.concat(stacked, 0);
  const width = all.shape[1];
  return tf.sum(tf.reshape(tf.gather(all, tf.tensor1d(rows.rowOf, 'int32')), [tokens, k, width]), 1);
}

/**
 * out [T, hidden] from the layer's post-attention-norm output f [T, hidden], the dense routing
 * weights [T, E] (zero where not routed) and every expert's weights.
 */
export function expertMixture(routing: MoeRouting, rows: ExpertRows, f: tf.Tensor2D, weights: tf.Tensor2D, experts: readonly ExpertWeights[]): tf.Tensor2D {
  const k = routing.expertsPerToken;
  const active = experts.map((_, e) => e).filter((e) => (rows.tokensOf[e] as Int32Array).length > 0);
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const [fIn, wIn] = args as [tf.Tensor2D, tf.Tensor2D];
    // Every input is saved: inside a whole-model graph the expert weights are intermediates
    // (transposed on the fly) that the forward's tidy would otherwise dispose before the backward.
    save(args.slice(0, -1) as tf.Tensor[]);
    const weighted = active.map((e) => {
      const tokens = rows.tokensOf[e] as Int32Array;
      return tf.mul<tf.Tensor2D>(expertPass(fIn, tokens, experts[e] as ExpertWeights).y, rowWeights(wIn, tokens, e));
    });
    return {
      value: gatherToTokens(weighted, rows, routing.tokens, k),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [fSaved, wSaved, ...expertTensors] = saved as tf.Tensor2D[];
        const savedExperts = experts.map((_, e): ExpertWeights => ({ gate: expertTensors[3 * e] as tf.Tensor2D, up: expertTensors[3 * e + 1] as tf.Tensor2D, down: expertTensors[3 * e + 2] as tf.Tensor2D }));
        return mixtureGrads(dy as tf.Tensor2D, fSaved as tf.Tensor2D, wSaved as tf.Tensor2D, active, rows, routing, savedExperts);
      },
    };
  });
  return op(f, weights, ...experts.flatMap((w) => [w.gate, w.up, w.down])) as tf.Tensor2D;
}

/** [df, dWeights, then dGate, dUp, dDown per expert] (compute layout). */
function mixtureGrads(dy: tf.Tensor2D, f: tf.Tensor2D, weights: tf.Tensor2D, active: readonly number[], rows: ExpertRows, routing: MoeRouting, experts: readonly ExpertWeights[]): tf.Tensor[] {
  const numExperts = routing.numExperts;
  const dWeights = new Float32Array(routing.tokens * numExperts);
  const expertGrads: (tf.Tensor[] | undefined)[] = experts.map(() => undefined);
  const dxRows = active.map((e) => {
    const tokens = rows.tokensOf[e] as Int32Array;
    const w = experts[e] as ExpertWeights;
    const pass = expertPass(f, tokens, w);
    const dOut = tf.gather(dy, tf.tensor1d(tokens, 'int32'));
    const dWeight = tf.sum(tf.mul(dOut, pass.y), 1).dataSync();
    tokens.forEach((t, i) => (dWeights[t * numExperts + e] = dWeight[i] as number));
    const dY = tf.mul<tf.Tensor2D>(dOut, rowWeights(weights, tokens, e));
    const dHidden = matMul<tf.Tensor2D>(dY, w.down, false, true);
    const silu = tf.mul(pass.gate, pass.sig);
    const dUp = tf.mul<tf.Tensor2D>(dHidden, silu);
    // silu'(g) = σ(g)·(1 + g·(1 − σ(g)))
    const siluGrad = tf.mul(pass.sig, tf.add(1, tf.mul(pass.gate, tf.sub(1, pass.sig))));
    const dGate = tf.mul<tf.Tensor2D>(tf.mul(dHidden, pass.up), siluGrad);
    expertGrads[e] = [matMul(pass.x, dGate, true, false), matMul(pass.x, dUp, true, false), matMul(pass.hidden, dY, true, false)];
    return tf.add<tf.Tensor2D>(matMul(dGate, w.gate, false, true), matMul(dUp, w.up, false, true));
  });
  const df = gatherToTokens(dxRows, rows, routing.tokens, routing.expertsPerToken);
  const unrouted = (w: ExpertWeights): tf.Tensor[] => [tf.zerosLike(w.gate), tf.zerosLike(w.up), tf.zerosLike(w.down)];
  return [df, tf.tensor2d(dWeights, [routing.tokens, numExperts]), ...experts.flatMap((w, e) => expertGrads[e] ?? unrouted(w))];
}
