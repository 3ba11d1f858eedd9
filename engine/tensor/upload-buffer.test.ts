import * as tf from '@tensorflow/tfjs-core';
import { afterAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.ts';
import { uploadCopiesValues, withUploadBuffer } from './upload-buffer.ts';

describe('withUploadBuffer', () => {
  afterAll(async () => {
    await initBackend('wasm');
  });

  it('on wasm lends one array again and again, and a tensor made from it keeps its values after the array is rewritten', async () => {
    await initBackend('wasm');
    expect(uploadCopiesValues()).toBe(true);
    const first = await withUploadBuffer(8, async (into) => into);
    const again = await withUploadBuffer(6, async (into) => into);
    expect(first).toBeInstanceOf(Float32Array);
    expect(again).toBe(first);
    const tensor = await withUploadBuffer(4, async (into) => {
      (into as Float32Array).set([1, 2, 3, 4]);
      return tf.tensor1d((into as Float32Array).subarray(0, 4));
    });
    await withUploadBuffer(4, async (into) => (into as Float32Array).fill(9));
    expect(Array.from(tensor.dataSync())).toEqual([1, 2, 3, 4]);
    tensor.dispose();
  });

  it('gives a caller that asks while the array is lent one of its own, and keeps the larger for later', async () => {
    await initBackend('wasm');
    let inner: Float32Array | undefined;
    const outer = await withUploadBuffer(4, async (into) => {
      inner = await withUploadBuffer(1 << 12, async (nested) => nested);
      return into;
    });
    expect(inner).not.toBe(outer);
    expect(inner?.length).toBe(1 << 12);
    expect(await withUploadBuffer(16, async (into) => into)).toBe(inner);
  });

  it('lends nothing where uploads keep their array (cpu), and passes on what `use` returns or throws', async () => {
    await initBackend('cpu');
    expect(uploadCopiesValues()).toBe(false);
    expect(await withUploadBuffer(8, async (into) => into)).toBeUndefined();
    await expect(withUploadBuffer(8, async () => { throw new RangeError('read failed'); })).rejects.toThrow('read failed');
  });
});
