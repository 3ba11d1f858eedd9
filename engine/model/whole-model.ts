/**
 * The whole model (embedding lookup, every layer, head, masked loss) as ONE tfjs function of all
 * parameters, for small models only: tf.grads over it gives every gradient in one pass. It is
 * the reference the layer-wise backward is tested against, and what the demo pair trains with.
 *
 * Parameters are taken by checkpoint name in the checkpoint's layout ([out, in] for linear
 * weights; the router and expert weights are transposed inside the graph, as weights.ts
 * heldTransposed says). A looped model runs every pass over the same parameters
 * (loop-passes.ts), so each one's gradient is the sum over passes.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ModelSpec } from './config.ts';
import { decoderLayer, type LayerOutput } from './decoder-layer.ts';
import { crossEntropySum } from './cross-entropy.ts';
import { targetRows } from './head.ts';
import { throughPasses } from './loop-passes.ts';
import { rmsNorm } from './ops.ts';
import type { LossSequence } from './layer-grads.ts';
import { ropeTables } from './rope.ts';
import { EMBED_NAME, FINAL_NORM_NAME, LM_HEAD_NAME, heldTransposed, layerParamShapes, layerTensorName, type LayerParams } from './weights.ts';

/** Sees each layer's output inside the graph (MoE training adds a router loss from it). */
export type LayerObserver = (layer: number, output: LayerOutput, params: LayerParams) => void;

/** Every parameter of the model with its checkpoint shape, in a fixed order. */
export function allParamShapes(spec: ModelSpec): Map<string, readonly number[]> {
  const { vocabSize: v, hiddenSize: h } = spec;
  const shapes = new Map<string, readonly number[]>([[EMBED_NAME, [v, h]], [FINAL_NORM_NAME, [h]]]);
  if (!spec.tiedEmbeddings) shapes.set(LM_HEAD_NAME, [v, h]);
  for (let l = 0; l < spec.numLayers; l++) for (const [key, shape] of layerParamShapes(spec, l)) shapes.set(layerTensorName(l, key), shape);
  return shapes;
}

export function allParamNames(spec: ModelSpec): string[] {
  return [...allParamShapes(spec).keys()];
}

/** Mean over sequences of each sequence's mean target cross-entropy. Call inside tf.tidy/grads. */
export function wholeModelLoss(spec: ModelSpec, param: (name: string) => tf.Tensor, batch: readonly LossSequence[], observe?: LayerObserver): tf.Scalar {
  const embed = param(EMBED_NAME) as tf.Tensor2D;
  const losses = batch.map((seq) => {
    const ids = Array.from(seq.ids);
    const rope = ropeTables(spec, 0, ids.length);
    // Embedding lookup as a one-hot matmul: gather's gradient kernel is missing on wasm.
    const embedded: tf.Tensor2D = tf.matMul(tf.oneHot(tf.tensor1d(ids, 'int32'), spec.vocabSize), embed);
    const x = throughPasses(spec, embedded, (input, _pass, l) => {
      const p = Object.fromEntries([...layerParamShapes(spec, l).keys()].map((k) => {
        const value = param(layerTensorName(l, k));
        return [k, heldTransposed(k) ? tf.transpose(value) : value];
      }));
      const output = decoderLayer(spec, p, input, rope);
      observe?.(l, output, p);
      return output.out;
    }, (input) => rmsNorm(input, param(FINAL_NORM_NAME) as tf.Tensor1D, spec.rmsNormEps));
    const { rows, labels } = targetRows(ids, seq.targets);
    const h: tf.Tensor2D = tf.matMul(tf.oneHot(tf.tensor1d(rows, 'int32'), ids.length), x);
    const lmHead = tf.transpose(spec.tiedEmbeddings ? embed : (param(LM_HEAD_NAME) as tf.Tensor2D));
    const logits: tf.Tensor2D = tf.matMul(rmsNorm(h, param(FINAL_NORM_NAME) as tf.Tensor1D, spec.rmsNormEps), lmHead);
    return tf.div(crossEntropySum(logits, labels), rows.length);
  });
  return tf.div(tf.addN(losses), batch.length) as tf.Scalar;
}
