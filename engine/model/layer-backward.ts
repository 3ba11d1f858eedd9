/**
 * backwardLayer: one step of the layer-wise backward. Reads decoder layer `layer` from disk (its
 * projections as stored, [out, in], which the input gradients multiply directly: ops.ts linear),
 * recomputes it on each sequence's stashed input under tf.grads with the incoming output
 * gradient (the MLP in row chunks that recompute their activations: chunked-mlp.ts), and returns
 * the input gradients (for the layer below) and the parameter gradients summed over sequences, in
 * the checkpoint's names and layouts (with `lent`, in arrays kept there for the next layer:
 * weights.ts checkpointLayerGrads). Everything in tfjs memory is released before returning.
 */
import * as tf from '@tensorflow/tfjs-core';
import { decoderLayer } from './decoder-layer.ts';
import type { ModelContext, RopeCache } from './forward.ts';
import { accumulate } from './head.ts';
import { checkpointLayerGrads, disposeLayer, readLayer } from './weights.ts';

export interface LayerBackward {
  /** d objective / d layer input, one [T·hidden] per sequence. */
  readonly dInputs: Float32Array[];
  /** Full checkpoint tensor name → gradient (checkpoint layout). */
  readonly grads: Map<string, Float32Array>;
}

export async function backwardLayer(
  ctx: ModelContext,
  layer: number,
  inputs: readonly Float32Array[],
  dOutputs: readonly Float32Array[],
  ropes: RopeCache,
  lent?: Map<string, Float32Array>,
): Promise<LayerBackward> {
  const { spec } = ctx;
  const width = spec.hiddenSize;
  const weights = await readLayer(ctx.checkpoint, spec, layer);
  const keys = Object.keys(weights.params);
  const sums = new Map<string, tf.Tensor>();
  const dInputs: Float32Array[] = [];
  try {
    inputs.forEach((input, s) => {
      const length = input.length / width;
      const [dx, ...dParams] = tf.tidy(() => {
        const f = (x: tf.Tensor, ...ps: tf.Tensor[]): tf.Tensor => {
          const named = Object.fromEntries(keys.map((k, i) => [k, ps[i] as tf.Tensor]));
          return decoderLayer(spec, named, x as tf.Tensor2D, ropes.get(length), undefined, true).out;
        };
        const x = tf.tensor2d(input, [length, width]);
        const dy = tf.tensor2d(dOutputs[s] as Float32Array, [length, width]);
        return tf.grads(f)([x, ...keys.map((k) => weights.params[k] as tf.Tensor)], dy);
      }) as [tf.Tensor, ...tf.Tensor[]];
      dInputs.push(dx.dataSync() as Float32Array);
      dx.dispose();
      keys.forEach((k, i) => sums.set(k, accumulate(sums.get(k), dParams[i] as tf.Tensor)));
    });
    return { dInputs, grads: checkpointLayerGrads(spec, weights, layer, sums, lent) };
  } finally {
    disposeLayer(weights);
    tf.dispose([...sums.values()]);
  }
}
