import * as tf from '@tensorflow/tfjs-core';
import { afterAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.ts';
import { withHeapValues } from './heap-values.ts';

describe.each(['wasm', 'cpu'] as const)('withHeapValues on %s', (backend) => {
  afterAll(async () => {
    await initBackend('wasm');
  });

  it('hands over the values of a computed tensor (a reshaped one too) and returns what `use` returns', async () => {
    await initBackend(backend);
    const a = tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3]);
    const product = tf.matMul(a, a, false, true);
    const flat = tf.reshape(product, [4]);
    expect(withHeapValues(product, (values) => Array.from(values))).toEqual([14, 32, 32, 77]);
    expect(withHeapValues(flat, (values) => values.length)).toBe(4);
    tf.dispose([a, product, flat]);
  });

  it('refuses a tensor that is not float32', async () => {
    await initBackend(backend);
    const ids = tf.tensor1d([1, 2], 'int32');
    expect(() => withHeapValues(ids, () => 0)).toThrow(/reads float32 tensors, not int32/);
    ids.dispose();
  });
});
