import * as tf from '@tensorflow/tfjs-core';
import { afterAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.ts';
import { copyValues, withHeapValues } from './heap-values.ts';

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

  it('copies the values into a lent array (copyValues), its first tensor.size values, and refuses one too short', async () => {
    await initBackend(backend);
    const a = tf.tensor2d([1.5, -2, 3, 4.25, 5, 6], [2, 3]);
    const product = tf.matMul(a, a, false, true);
    const out = new Float32Array(6).fill(9);
    const copied = copyValues(product, out);
    expect(copied.buffer).toBe(out.buffer);
    expect([...copied]).toEqual([...product.dataSync()]);
    expect([...out.subarray(4)]).toEqual([9, 9]);
    expect(() => copyValues(product, new Float32Array(3))).toThrow(/4 values do not fit an array of 3/);
    tf.dispose([a, product]);
  });
});
