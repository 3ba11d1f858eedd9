/**
 * The reference the layer-wise backward is tested against: one tf.grads call over the whole
 * model (whole-model.ts) with every parameter read from the source.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { ModelSpec } from '../config.ts';
import type { LossSequence } from '../layer-grads.ts';
import type { WeightSource } from '../weights.ts';
import { allParamNames, wholeModelLoss } from '../whole-model.ts';

/** Loss (mean over sequences of mean target CE) and its gradient for every parameter. */
export async function wholeGraphGrads(source: WeightSource, spec: ModelSpec, batch: readonly LossSequence[]): Promise<{ loss: number; grads: Map<string, Float32Array> }> {
  const names = allParamNames(spec);
  const values = await Promise.all(names.map(async (n) => tf.tensor(await source.readFloat32(n), [...source.tensor(n).shape])));
  try {
    const f = (...params: tf.Tensor[]): tf.Scalar => {
      const byName = new Map(names.map((n, i) => [n, params[i] as tf.Tensor]));
      return wholeModelLoss(spec, (n) => byName.get(n) as tf.Tensor, batch);
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
