import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.ts';
import { tidyValues } from './tidy-values.ts';

describe('tidyValues', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('returns the computed values and leaves no tensor behind, intermediates included', () => {
    const a = tf.tensor2d([1, 2, 3, 4], [2, 2]);
    const before = tf.memory().numTensors;
    const values = tidyValues(() => tf.matMul(tf.add(a, 1), a));
    expect(Array.from(values)).toEqual([2 * 1 + 3 * 3, 2 * 2 + 3 * 4, 4 * 1 + 5 * 3, 4 * 2 + 5 * 4]);
    expect(tf.memory().numTensors).toBe(before);
    a.dispose();
  });

  it('disposes the result even when reading it fails', () => {
    const before = tf.memory().numTensors;
    const t = tf.tensor1d([1]);
    expect(() => tidyValues(() => {
      t.dispose();
      return t;
    })).toThrow();
    expect(tf.memory().numTensors).toBe(before);
  });
});
