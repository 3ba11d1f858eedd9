/**
 * A small model held entirely as tfjs variables, for training (the demo pair). Parameters are
 * kept in the checkpoint layout under their checkpoint names, so saving is a plain read-out.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { TensorSpec } from '../../io/tensor-encoding.ts';
import { SeededRandom } from '../../protocol/seeded-random.ts';
import { parseModelSpec, type ModelSpec } from '../config.ts';
import type { LossSequence } from '../layer-grads.ts';
import { allParamShapes, wholeModelLoss } from '../whole-model.ts';

export interface NamedTensor {
  readonly spec: TensorSpec;
  readonly data: Float32Array;
}

export class TrainableModel {
  private constructor(
    readonly config: Readonly<Record<string, unknown>>,
    readonly spec: ModelSpec,
    readonly params: ReadonlyMap<string, tf.Variable>,
  ) {}

  /** Random initialisation: linear weights N(0, std²), embeddings N(0, std²), norms at 1. */
  static random(config: Readonly<Record<string, unknown>>, seed: number, std = 0.02): TrainableModel {
    const spec = parseModelSpec(config, 'config.json');
    const rng = new SeededRandom(seed);
    const shapes = allParamShapes(spec);
    const params = new Map<string, tf.Variable>();
    for (const [name, shape] of shapes) {
      const count = shape.reduce((a, b) => a * b, 1);
      const values = name.endsWith('norm.weight') ? new Float32Array(count).fill(1) : name.endsWith('.bias') ? new Float32Array(count) : rng.normals(count, std);
      params.set(name, tf.variable(tf.tensor(values, [...shape]), true));
    }
    return new TrainableModel(config, spec, params);
  }

  /** An independent copy (a fine-tune starts from a copy of the base). */
  copy(): TrainableModel {
    const params = new Map([...this.params].map(([name, v]) => [name, tf.variable(v.clone(), true)]));
    return new TrainableModel(this.config, this.spec, params);
  }

  /** Mean over sequences of each one's mean target cross-entropy (call inside tf.tidy / grads). */
  loss(batch: readonly LossSequence[]): tf.Scalar {
    return wholeModelLoss(this.spec, (name) => this.params.get(name) as tf.Variable, batch);
  }

  /** Current values in checkpoint names and layout, F32. */
  tensors(): NamedTensor[] {
    return [...this.params].map(([name, v]) => ({ spec: { name, dtype: 'F32', shape: v.shape }, data: Float32Array.from(v.dataSync()) }));
  }

  dispose(): void {
    tf.dispose([...this.params.values()]);
  }
}
