/**
 * The SwiGLU MLP, down(silu(gate(x)) ∘ up(x)), over chunks of token rows, as one op whose
 * gradient recomputes each chunk instead of keeping its activations.
 *
 * Under tf.grads the plain expression keeps g, sigmoid(g), silu(g), u and their product, each
 * [T, intermediate] — at Qwen3-4B shapes and 2,048 tokens five 80 MB matrices on the tape, and as
 * many again while their gradients are formed: with the layer's weights and their packed copies
 * that ran out of wasm's 4 GiB heap. Here the op saves only x; forward and backward walk the rows
 * `rowChunk` at a time (memory-plan.ts picks it), so at most one chunk's intermediates exist.
 *
 * The weights are as stored, [out, in] (W_g, W_u [intermediate, hidden], W_d [hidden, intermediate]),
 * so the forward's products are x·Wᵀ = (W·xᵀ)ᵀ (ops.ts storedProduct: the weight on the left, a
 * chunk-sized operand transposed) and the input gradients plain products with W; the weight
 * gradients come out in W's layout, dW = dᵀ·a. No weight is ever transposed.
 *
 *   g = x·W_gᵀ + b_g,  u = x·W_uᵀ + b_u,  s = sigmoid(g),  h = g·s·u,  y = h·W_dᵀ + b_d
 *   dW_d += dyᵀ·h,  dh = dy·W_d,  dU = dh ∘ g·s,  dG = dh ∘ u ∘ s ∘ (1 + g(1 − s))
 *   dW_g += dGᵀ·x,  dW_u += dUᵀ·x,  dx = dG·W_g + dU·W_u   (biases: column sums of dG, dU, dy)
 */
import * as tf from '@tensorflow/tfjs-core';
import { matMul } from '../tensor/matmul.ts';
import { accumulate } from './head.ts';
import { storedProduct } from './ops.ts';

/** The MLP's weights as stored, [out, in]; biases where the model has them. */
export interface MlpWeights {
  readonly gate: tf.Tensor2D;
  readonly up: tf.Tensor2D;
  readonly down: tf.Tensor2D;
  readonly gateBias?: tf.Tensor1D;
  readonly upBias?: tf.Tensor1D;
  readonly downBias?: tf.Tensor1D;
}

const BIAS_KEYS = ['gateBias', 'upBias', 'downBias'] as const;

/** down(silu(gate(x)) ∘ up(x)) for x [T, hidden], `rowChunk` rows at a time. */
export function chunkedSwiglu(x: tf.Tensor2D, weights: MlpWeights, rowChunk: number): tf.Tensor2D {
  if (!(Number.isInteger(rowChunk) && rowChunk > 0)) throw new RangeError(`MLP row chunk ${rowChunk} must be a positive integer`);
  const biases = BIAS_KEYS.filter((key) => weights[key] !== undefined);
  const op = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const inputs = args.slice(0, -1) as tf.Tensor[];
    const save = args.at(-1) as tf.GradSaveFunc;
    const [input, gate, up, down, ...biasValues] = inputs as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, ...tf.Tensor1D[]];
    const w: MlpWeights = { gate, up, down, ...Object.fromEntries(biases.map((key, i) => [key, biasValues[i]])) };
    save([input]);
    return {
      value: forward(input, w, rowChunk),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => backward(saved[0] as tf.Tensor2D, dy as tf.Tensor2D, w, rowChunk, biases),
    };
  });
  return op(x, weights.gate, weights.up, weights.down, ...biases.map((key) => weights[key] as tf.Tensor1D)) as tf.Tensor2D;
}

interface ChunkActivations {
  readonly g: tf.Tensor2D;
  readonly u: tf.Tensor2D;
  readonly sig: tf.Tensor2D;
  /** silu(g) = g·sigmoid(g). */
  readonly silu: tf.Tensor2D;
  /** silu(g) ∘ u: the down_proj input. */
  readonly hidden: tf.Tensor2D;
}

function activations(x: tf.Tensor2D, w: MlpWeights): ChunkActivations {
  const affine = (weight: tf.Tensor2D, bias: tf.Tensor1D | undefined): tf.Tensor2D => {
    const y = storedProduct(x, weight);
    return bias === undefined ? y : tf.add<tf.Tensor2D>(y, bias);
  };
  const g = affine(w.gate, w.gateBias);
  const u = affine(w.up, w.upBias);
  const sig = tf.sigmoid<tf.Tensor2D>(g);
  const silu = tf.mul<tf.Tensor2D>(g, sig);
  return { g, u, sig, silu, hidden: tf.mul<tf.Tensor2D>(silu, u) };
}

function rowsOf(x: tf.Tensor2D, first: number, count: number): tf.Tensor2D {
  return count === x.shape[0] ? x : tf.slice(x, [first, 0], [count, x.shape[1]]);
}

function forward(x: tf.Tensor2D, w: MlpWeights, rowChunk: number): tf.Tensor2D {
  const parts: tf.Tensor2D[] = [];
  try {
    for (let first = 0; first < x.shape[0]; first += rowChunk) {
      const count = Math.min(rowChunk, x.shape[0] - first);
      parts.push(tf.tidy(() => {
        const y = storedProduct(activations(rowsOf(x, first, count), w).hidden, w.down);
        return w.downBias === undefined ? y : tf.add<tf.Tensor2D>(y, w.downBias);
      }));
    }
    return parts.length === 1 ? (parts[0] as tf.Tensor2D) : tf.concat(parts, 0);
  } finally {
    if (parts.length > 1) tf.dispose(parts);
  }
}

/** Gradients for [x, gate, up, down, ...biases present]. */
function backward(x: tf.Tensor2D, dy: tf.Tensor2D, w: MlpWeights, rowChunk: number, biases: readonly (typeof BIAS_KEYS)[number][]): tf.Tensor[] {
  const dx: tf.Tensor2D[] = [];
  // Sums over chunks, in the op's input order after x: gate, up, down, then the biases present.
  let sums: (tf.Tensor | undefined)[] = [];
  try {
    for (let first = 0; first < x.shape[0]; first += rowChunk) {
      const count = Math.min(rowChunk, x.shape[0] - first);
      const [dxc, ...parts] = tf.tidy(() => {
        const xc = rowsOf(x, first, count);
        const dyc = rowsOf(dy, first, count);
        const a = activations(xc, w);
        const dh = tf.matMul<tf.Tensor2D>(dyc, w.down);
        const dU = tf.mul<tf.Tensor2D>(dh, a.silu);
        // d silu / dg = s + g·s(1 − s) = s·(1 + g(1 − s)).
        const dG = tf.mul<tf.Tensor2D>(tf.mul(dh, a.u), tf.mul(a.sig, tf.add(1, tf.mul(a.g, tf.sub(1, a.sig)))));
        const grads: Record<(typeof BIAS_KEYS)[number], () => tf.Tensor> = {
          gateBias: () => tf.sum(dG, 0), upBias: () => tf.sum(dU, 0), downBias: () => tf.sum(dyc, 0),
        };
        return [
          tf.add(tf.matMul(dG, w.gate), tf.matMul(dU, w.up)),
          matMul(dG, xc, true, false), matMul(dU, xc, true, false), matMul(dyc, a.hidden, true, false),
          ...biases.map((key) => grads[key]()),
        ];
      });
      dx.push(dxc as tf.Tensor2D);
      sums = parts.map((part, i) => accumulate(sums[i], part));
    }
    const result = [dx.length === 1 ? (dx[0] as tf.Tensor2D) : tf.concat(dx, 0), ...(sums as tf.Tensor[])];
    sums = [];
    return result;
  } finally {
    if (dx.length > 1) tf.dispose(dx);
    tf.dispose(sums.filter((s): s is tf.Tensor => s !== undefined));
  }
}
