import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../../tensor/backend.ts';
import { AdamW, cosineSchedule } from './adamw.ts';

describe('AdamW', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('matches a hand-computed first step (bias-corrected update = lr·sign(g) plus decay)', () => {
    const w = tf.variable(tf.tensor2d([[1, -2]]), true, 'w');
    const opt = new AdamW(new Map([['w', w]]), { weightDecay: 0.1, clipNorm: 100 });
    // loss = 3·w0 − w1 → g = [3, −1]; first Adam step moves each coordinate by lr·g/|g| = lr·sign(g).
    const { loss, gradNorm } = opt.minimize(() => tf.sum(tf.mul(w, tf.tensor2d([[3, -1]]))) as tf.Scalar, 0.01);
    expect(loss).toBeCloseTo(5, 6);
    expect(gradNorm).toBeCloseTo(Math.sqrt(10), 5);
    const [a, b] = w.dataSync();
    expect(a).toBeCloseTo(1 - 0.01 * (1 + 0.1 * 1), 6);
    expect(b).toBeCloseTo(-2 - 0.01 * (-1 + 0.1 * -2), 6);
    opt.dispose();
    w.dispose();
  });

  it('clips by global norm and reaches the minimum of a quadratic', () => {
    const w = tf.variable(tf.tensor1d([5, -3]), true, 'q');
    const opt = new AdamW(new Map([['q', w]]), { weightDecay: 0, clipNorm: 0.5 });
    const target = tf.tensor1d([1, 2]);
    let last = Infinity;
    for (let i = 0; i < 400; i++) last = opt.minimize(() => tf.sum(tf.square(tf.sub(w, target))) as tf.Scalar, cosineSchedule(i, 400, 0.1, 10)).loss;
    expect(last).toBeLessThan(1e-3);
    opt.dispose();
    tf.dispose([w, target]);
  });

  it('schedules a warm-up then a cosine decay', () => {
    expect(cosineSchedule(0, 100, 1, 10)).toBeCloseTo(0.1);
    expect(cosineSchedule(9, 100, 1, 10)).toBeCloseTo(1);
    expect(cosineSchedule(55, 100, 1, 10)).toBeCloseTo(0.55);
    expect(cosineSchedule(100, 100, 1, 10, 0.1)).toBeCloseTo(0.1);
  });
});
