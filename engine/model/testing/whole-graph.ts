/**
 * The reference the layer-wise backward is tested against: the whole model (embedding lookup as
 * a one-hot matmul, every layer, head, masked loss) as ONE tfjs function of all parameters,
 * differentiated by a single tf.grads call. Small models only: everything is in memory at once.
 */
import * as tf from '@tensorflow/tfjs-core';
import '../../tensor/gradients.ts';
import type { ModelSpec } from '../config.ts';
import { decoderLayer } from '../decoder-layer.ts';
import { crossEntropySum, headLogits, targetRows } from '../head.ts';
import type { LossSequence } from '../layer-grads.ts';
import { ropeTables } from '../rope.ts';
import { EMBED_NAME, FINAL_NORM_NAME, LM_HEAD_NAME, isLinearWeight, layerParamShapes, layerTensorName, type WeightSource } from '../weights.ts';

/** Every parameter name of the model, in a fixed order. */
export function allParamNames(spec: ModelSpec): string[] {
  const names = [EMBED_NAME, FINAL_NORM_NAME, ...(spec.tiedEmbeddings ? [] : [LM_HEAD_NAME])];
  for (let l = 0; l < spec.numLayers; l++) for (const key of layerParamShapes(spec).keys()) names.push(layerTensorName(l, key));
  return names;
}

/** Loss (mean over sequences of mean target CE) and its gradient for every parameter. */
export async function wholeGraphGrads(source: WeightSource, spec: ModelSpec, batch: readonly LossSequence[]): Promise<{ loss: number; grads: Map<string, Float32Array> }> {
  const names = allParamNames(spec);
  const values = await Promise.all(names.map(async (n) => tf.tensor(await source.readFloat32(n), [...source.tensor(n).shape])));
  try {
    const f = (...params: tf.Tensor[]): tf.Scalar => {
      const byName = new Map(names.map((n, i) => [n, params[i] as tf.Tensor]));
      const get = (n: string): tf.Tensor => byName.get(n) as tf.Tensor;
      const embed = get(EMBED_NAME) as tf.Tensor2D;
      const losses = batch.map((seq) => {
        const ids = Array.from(seq.ids);
        const rope = ropeTables(spec, 0, ids.length);
        let x: tf.Tensor2D = tf.matMul(tf.oneHot(tf.tensor1d(ids, 'int32'), spec.vocabSize), embed);
        for (let l = 0; l < spec.numLayers; l++) {
          // Parameters are taken in the checkpoint's layout; linear weights are transposed inside the graph.
          const p = Object.fromEntries([...layerParamShapes(spec).keys()].map((k) => {
            const value = get(layerTensorName(l, k));
            return [k, isLinearWeight(k) ? tf.transpose(value) : value];
          }));
          x = decoderLayer(spec, p, x, rope).out;
        }
        const { rows, labels } = targetRows(ids, seq.targets);
        // Row selection as a one-hot matmul: gather's gradient kernel is missing on wasm.
        const h: tf.Tensor2D = tf.matMul(tf.oneHot(tf.tensor1d(rows, 'int32'), ids.length), x);
        const head = { norm: get(FINAL_NORM_NAME) as tf.Tensor1D, lmHead: tf.transpose(spec.tiedEmbeddings ? embed : (get(LM_HEAD_NAME) as tf.Tensor2D)) };
        return tf.div(crossEntropySum(headLogits(spec, head, h), labels), rows.length);
      });
      return tf.div(tf.addN(losses), batch.length) as tf.Scalar;
    };
    const { value, grads } = tf.tidy(() => tf.valueAndGrads(f)(values));
    const out = new Map(names.map((n, i) => [n, Float32Array.from((grads[i] as tf.Tensor).dataSync())]));
    const loss = value.dataSync()[0] as number;
    tf.dispose([value, ...grads]);
    return { loss, grads: out };
  } finally {
    tf.dispose(values);
  }
}
