/** uploadRowBlocks against tf.tensor2d of the same values, on wasm (into the heap) and cpu (one array). */
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
import { uploadRowBlocks } from './row-block-upload.ts';

const rows = 11;
const width = 3;
const values = Float32Array.from({ length: rows * width }, (_, i) => Math.fround(Math.sin(i + 1) * 1e3));
const read = (calls: [number, number][]) => (first: number, count: number): Promise<Float32Array> => {
  calls.push([first, count]);
  return Promise.resolve(values.slice(first * width, (first + count) * width));
};

describe.each(['wasm', 'cpu'] as const)('uploadRowBlocks on %s', (backend) => {
  it.each([1, 4, 11, 20])('blocks of %i rows: the tensor holds every value, each block read once in order', async (blockRows) => {
    await initBackend(backend);
    const calls: [number, number][] = [];
    const before = tf.memory().numTensors;
    const tensor = await uploadRowBlocks(rows, width, blockRows, read(calls));
    expect(tensor.shape).toEqual([rows, width]);
    expect(tensor.dataSync()).toEqual(values);
    expect(calls).toEqual(Array.from({ length: Math.ceil(rows / blockRows) }, (_, k) => [k * blockRows, Math.min(blockRows, rows - k * blockRows)]));
    // a product with it is the product with tf.tensor2d of the same values, bit for bit
    const x = tf.tensor2d([0.5, -2, 3.25], [width, 1]);
    const plain = tf.tensor2d(values, [rows, width]);
    const [got, want] = tf.tidy(() => [tf.matMul(tensor, x).dataSync(), tf.matMul(plain, x).dataSync()]);
    expect(got).toEqual(want);
    tf.dispose([tensor, x, plain]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('disposes the tensor and rejects when a read fails or gives the wrong length', async () => {
    await initBackend(backend);
    const before = tf.memory().numTensors;
    await expect(uploadRowBlocks(rows, width, 4, (first) => (first === 4 ? Promise.reject(new Error('disk gone')) : Promise.resolve(new Float32Array(4 * width))))).rejects.toThrow('disk gone');
    await expect(uploadRowBlocks(rows, width, 4, () => Promise.resolve(new Float32Array(width)))).rejects.toThrow(/a block of 3 values for 4 rows of 3/);
    await expect(uploadRowBlocks(rows, width, 0, read([]))).rejects.toThrow(/row blocks of 0 rows/);
    expect(tf.memory().numTensors).toBe(before);
  });
});
