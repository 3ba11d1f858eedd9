/**
 * Reads a demo base checkpoint back as a TrainableModel, so `demo:train --resume` fine-tunes
 * from it exactly as from the base it just trained (the base is written in F32: no rounding).
 */
import * as tf from '@tensorflow/tfjs-core';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { TrainableModel } from '../../engine/model/training/trainable-model.ts';

export async function loadTrainedBase(dir: string, config: Readonly<Record<string, unknown>>): Promise<TrainableModel> {
  const checkpoint = await Checkpoint.open(dir);
  // The random initialisation only gives the parameter set and shapes; every value is overwritten.
  const model = TrainableModel.random(config, 0);
  try {
    for (const [name, variable] of model.params) {
      const values = await checkpoint.readFloat32(name);
      if (values.length !== variable.size) throw new Error(`${dir}: ${name} has ${values.length} values, the demo model needs ${variable.size}`);
      tf.tidy(() => variable.assign(tf.tensor(values, variable.shape)));
    }
    return model;
  } catch (error) {
    model.dispose();
    throw error;
  } finally {
    await checkpoint.close();
  }
}
