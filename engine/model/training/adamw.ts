/**
 * AdamW with global-norm gradient clipping and a per-step learning rate. Written out (a dozen
 * tfjs ops) rather than tf.train.adam because that optimiser fixes its learning rate at
 * construction and neither clips nor decouples weight decay.
 */
import * as tf from '@tensorflow/tfjs-core';

export interface AdamWOptions {
  readonly beta1?: number;
  readonly beta2?: number;
  readonly epsilon?: number;
  /** Decoupled weight decay, applied to matrices only (not to norms or biases). */
  readonly weightDecay?: number;
  /** Gradients are scaled down so their global L2 norm is at most this. */
  readonly clipNorm?: number;
}

export class AdamW {
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();
  private step = 0;
  private readonly options: Required<AdamWOptions>;

  constructor(private readonly params: ReadonlyMap<string, tf.Variable>, options: AdamWOptions = {}) {
    this.options = { beta1: 0.9, beta2: 0.95, epsilon: 1e-8, weightDecay: 0.01, clipNorm: 1, ...options };
    for (const [name, p] of params) {
      this.m.set(name, tf.variable(tf.zerosLike(p), false));
      this.v.set(name, tf.variable(tf.zerosLike(p), false));
    }
  }

  /** One update from the loss; returns the loss value and the gradient norm before clipping. */
  minimize(loss: () => tf.Scalar, learningRate: number): { loss: number; gradNorm: number } {
    const { beta1, beta2, epsilon, weightDecay, clipNorm } = this.options;
    this.step++;
    const { value, grads } = tf.variableGrads(loss, [...this.params.values()]);
    const gradNorm = tf.tidy(() => tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))).dataSync()[0] as number);
    const scale = gradNorm > clipNorm ? clipNorm / gradNorm : 1;
    const correction1 = 1 - beta1 ** this.step;
    const correction2 = 1 - beta2 ** this.step;
    tf.tidy(() => {
      for (const [name, p] of this.params) {
        const g = tf.mul(grads[p.name] as tf.Tensor, scale);
        const m = this.m.get(name) as tf.Variable;
        const v = this.v.get(name) as tf.Variable;
        m.assign(tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1)));
        v.assign(tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2)));
        const update = tf.div(tf.div(m, correction1), tf.add(tf.sqrt(tf.div(v, correction2)), epsilon));
        const decay = p.rank >= 2 ? tf.mul(p, weightDecay) : tf.zerosLike(p);
        p.assign(tf.sub(p, tf.mul(tf.add(update, decay), learningRate)));
      }
    });
    const lossValue = value.dataSync()[0] as number;
    tf.dispose([value, ...Object.values(grads)]);
    return { loss: lossValue, gradNorm };
  }

  dispose(): void {
    tf.dispose([...this.m.values(), ...this.v.values()]);
  }
}

/** Linear warm-up, then cosine decay to `minRatio` of the peak. */
export function cosineSchedule(step: number, total: number, peak: number, warmup: number, minRatio = 0.1): number {
  if (step < warmup) return (peak * (step + 1)) / warmup;
  const progress = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return peak * (minRatio + (1 - minRatio) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}
