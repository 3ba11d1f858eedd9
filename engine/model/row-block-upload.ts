/**
 * uploadRowBlocks(rows, width, blockRows, read) → a [rows, width] float32 tensor whose rows are
 * read a block at a time (read(first, count) → [count · width]) and written straight into the
 * tensor's own memory: the head chunks of an on-demand head (head.ts), which exist nowhere else
 * as a whole.
 *
 * On wasm tf.tensor2d(values) needs the whole chunk in JS memory first (51,200 × 1,024 float32 is
 * 210 MB at Qwen3-0.6B shapes) and then copies it into the heap; here the tensor is allocated in
 * the heap uninitialised (the backend's makeOutput, as its kernels allocate their outputs) and
 * each block is copied into a fresh heap view — fresh because an allocation elsewhere while a
 * read is awaited may grow the heap, which detaches older views. Other backends keep the array
 * they are given, so there the blocks go into one array of the chunk's size, uploaded once.
 * The values are the blocks' float32 values exactly, either way.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

/**
 * Values per block where a vocab-sized tensor is read or edited a block of rows at a time: 4 MiB
 * of float32, so a block's arrays stay cache-sized whatever the tensor (an on-demand head's reads:
 * head.ts; the lm_head Δ and the anchors' edit: pipeline/tensor-deltas.ts, row-block-edit.ts).
 */
export const ROW_BLOCK_VALUES = 2 ** 20;

export type ReadRowBlock = (first: number, count: number) => Promise<Float32Array>;

/** Rows per block for rows of `width` values: blockValues / width rounded down, at least one row. */
export function blockRowsFor(width: number, blockValues = ROW_BLOCK_VALUES): number {
  return Math.max(1, Math.floor(blockValues / Math.max(1, width)));
}

/** Rows [0, rows) a block of `blockRows` at a time, in order: each block's first row and row count. */
export function* rowBlocks(rows: number, blockRows: number): Generator<{ readonly first: number; readonly count: number }> {
  for (let first = 0; first < rows; first += blockRows) yield { first, count: Math.min(blockRows, rows - first) };
}

/** The row ids first, first + 1, …, first + count − 1. */
export function rowIds(first: number, count: number): Int32Array {
  return Int32Array.from({ length: count }, (_, k) => first + k);
}

export async function uploadRowBlocks(rows: number, width: number, blockRows: number, read: ReadRowBlock): Promise<tf.Tensor2D> {
  if (!(Number.isInteger(blockRows) && blockRows > 0)) throw new RangeError(`row blocks of ${blockRows} rows: must be a positive integer`);
  const blocks = async (write: (values: Float32Array, first: number) => void): Promise<void> => {
    for (const { first, count } of rowBlocks(rows, blockRows)) {
      const values = await read(first, count);
      if (values.length !== count * width) throw new RangeError(`a block of ${values.length} values for ${count} rows of ${width}`);
      write(values, first * width);
    }
  };
  if (tf.getBackend() !== 'wasm') {
    const all = new Float32Array(rows * width);
    await blocks((values, at) => all.set(values, at));
    return tf.tensor2d(all, [rows, width]);
  }
  const backend = tf.backend() as BackendWasm;
  const tensor = tf.engine().makeTensorFromTensorInfo(backend.makeOutput([rows, width], 'float32')) as tf.Tensor2D;
  try {
    await blocks((values, at) => (backend.typedArrayFromHeap(tensor) as Float32Array).set(values, at));
    return tensor;
  } catch (error) {
    tensor.dispose();
    throw error;
  }
}
