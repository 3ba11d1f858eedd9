/**
 * One training phase (pre-training or a fine-tune): AdamW over shuffled packed windows with a
 * warm-up + cosine schedule. Deterministic for a given seed on a given backend.
 */
import { SeededRandom } from '../../protocol/seeded-random.ts';
import type { LossSequence } from '../layer-grads.ts';
import { AdamW, cosineSchedule, type AdamWOptions } from './adamw.ts';
import type { TrainableModel } from './trainable-model.ts';

export interface PhaseOptions extends AdamWOptions {
  readonly steps: number;
  readonly batchWindows: number;
  readonly peakLearningRate: number;
  readonly warmupSteps: number;
  readonly seed: number;
  readonly onStep?: (step: number, loss: number, learningRate: number) => void;
}

/** Trains in place (a TrainableModel, or an objective over one such as moe-objective.ts); returns the mean loss of the last tenth of the steps. */
export function trainPhase(model: Pick<TrainableModel, 'params' | 'loss'>, windows: readonly LossSequence[], options: PhaseOptions): number {
  if (windows.length < options.batchWindows) throw new RangeError(`only ${windows.length} windows for batches of ${options.batchWindows}`);
  const rng = new SeededRandom(options.seed);
  const optimizer = new AdamW(model.params, options);
  let order: LossSequence[] = [];
  const tail: number[] = [];
  try {
    for (let step = 0; step < options.steps; step++) {
      if (order.length < options.batchWindows) order = rng.shuffle(windows);
      const batch = order.splice(0, options.batchWindows);
      const lr = cosineSchedule(step, options.steps, options.peakLearningRate, options.warmupSteps);
      const { loss } = optimizer.minimize(() => model.loss(batch), lr);
      if (!Number.isFinite(loss)) throw new Error(`training diverged at step ${step} (loss ${loss})`);
      if (step >= Math.floor(options.steps * 0.9)) tail.push(loss);
      options.onStep?.(step, loss, lr);
    }
  } finally {
    optimizer.dispose();
  }
  return tail.reduce((a, b) => a + b, 0) / Math.max(1, tail.length);
}
