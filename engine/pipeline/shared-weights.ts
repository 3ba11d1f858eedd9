/**
 * Checkpoint tensors held once, as float32 in SharedArrayBuffers, for every gradient worker (and
 * for the gradients stage's own thread when it runs the batches itself: one read per stage) and
 * every curvature worker (curvature-workers.ts).
 *
 *   allocateSharedTensors(checkpoint, names) → SharedTensor[]     main thread: zeroed, not read
 *   fillSharedPart(checkpoint, shared, part)                      worker `part.index` of `part.count`:
 *                                                                 its share of every tensor, read
 *   withSharedTensors(source, shared) → WeightSource              worker: those names from shared memory (their rows copied
 *                                                                 out of it; other rows: the source's row reads)
 *
 * The stages share a tied head only: the embedding (vocab × hidden, 622 MB at Qwen3-0.6B
 * shapes), which the head reads whole and each worker would otherwise hold as its own float32
 * copy and read again for every batch. An untied lm_head is read a chunk at a time, a block of
 * rows at a time, as the head uses it (model/head.ts onDemand), and an untied embedding is
 * looked up by rows (model/embedding-rows.ts): neither needs a copy. Rows of a shared tensor are
 * copies out of it, checked as the reader checks them. The workers read the shared tensors
 * themselves, each an equal contiguous range of values straight into the shared buffer (F16/BF16 widened in
 * place), while the others do the same and start their backends: the read is split over the
 * cores, the main thread holds no second copy, and the workers start at once instead of after
 * the main thread's whole read (which was 10–20 s of a single busy core). The pool hands out
 * work only after every worker has filled its part. Decoder layers are streamed from disk one at
 * a time and are not worth sharing; the runtime only reads the tied embedding (row gathers,
 * head chunk uploads), so one copy serves every thread.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { DTYPE_BYTES } from '../io/dtype.ts';
import { widenInPlace } from '../io/half-float.ts';
import { openRegularFile } from '../io/input-file.ts';
import { readInto } from '../io/safetensors-reader.ts';
import { gatherRows } from '../model/head.ts';
import type { WeightSource } from '../model/weights.ts';
import type { SharedPart, SharedTensor } from './gradient-worker-protocol.ts';

const FLOAT32_BYTES = 4;

export function allocateSharedTensors(checkpoint: Pick<Checkpoint, 'dir' | 'tensor'>, names: readonly string[]): SharedTensor[] {
  return names.map((name) => {
    const info = checkpoint.tensor(name);
    if (info.dtype !== 'F32' && info.dtype !== 'F16' && info.dtype !== 'BF16' && info.dtype !== 'F64') {
      throw new CheckpointError('dtype', checkpoint.dir, `is ${info.dtype}, not a floating type (F64, F32, F16, BF16)`, name);
    }
    const count = (info.end - info.begin) / DTYPE_BYTES[info.dtype];
    return { name, buffer: new SharedArrayBuffer(count * FLOAT32_BYTES) };
  });
}

/** Values [start, end) of `count` that part `index` of `parts` reads: contiguous, in part order, covering all. */
export function partRange(count: number, part: SharedPart): { start: number; end: number } {
  return { start: Math.floor((count * part.index) / part.count), end: Math.floor((count * (part.index + 1)) / part.count) };
}

export async function fillSharedPart(checkpoint: Pick<Checkpoint, 'tensor' | 'location'>, shared: readonly SharedTensor[], part: SharedPart): Promise<void> {
  for (const { name, buffer } of shared) {
    const { dtype } = checkpoint.tensor(name);
    const values = new Float32Array(buffer);
    const { start, end } = partRange(values.length, part);
    const slice = values.subarray(start, end);
    const width = DTYPE_BYTES[dtype];
    const { path, position } = checkpoint.location(name);
    const handle = await openRegularFile(path);
    try {
      const at = position + start * width;
      const bytes = (end - start) * width;
      if (dtype === 'F16' || dtype === 'BF16') {
        // the patterns go into the upper half of the part's float32 slots (io/half-float.ts)
        await readInto(handle, path, at, new Uint8Array(buffer, slice.byteOffset + bytes, bytes), name);
        widenInPlace(dtype, slice);
      } else if (dtype === 'F64') {
        const wide = new Float64Array(end - start);
        await readInto(handle, path, at, new Uint8Array(wide.buffer), name);
        slice.set(wide);
      } else {
        await readInto(handle, path, at, new Uint8Array(buffer, slice.byteOffset, bytes), name);
      }
    } finally {
      await handle.close();
    }
  }
}

export function withSharedTensors(source: WeightSource, shared: readonly SharedTensor[]): WeightSource {
  const byName = new Map(shared.map((t) => [t.name, t.buffer]));
  const readRows = source.readRowsFloat32?.bind(source);
  return {
    dir: source.dir,
    config: source.config,
    tensors: source.tensors,
    tensor: (name) => source.tensor(name),
    readFloat32: async (name, into) => {
      const buffer = byName.get(name);
      return buffer === undefined ? source.readFloat32(name, into) : new Float32Array(buffer);
    },
    // a shared tensor's rows copied out of it (an on-demand head's chunks: model/head.ts), the others' the source's own row
    // reads (the same floats): the embedding lookup needs no whole embedding, shared or not (model/embedding-rows.ts)
    ...(readRows === undefined ? {} : {
      readRowsFloat32: async (name: string, rows: ArrayLike<number>) => {
        const buffer = byName.get(name);
        if (buffer === undefined) return readRows(name, rows);
        const [height = 0, ...rest] = source.tensor(name).shape;
        checkRows(source.dir, name, rows, height);
        return gatherRows(new Float32Array(buffer), Array.from(rows), rest.reduce((a, b) => a * b, 1));
      },
    }),
  };
}

/** The reader's check (SafetensorsFile.readRowsFloat32) for rows of a shared tensor: a row outside it would gather zeros, or read from the end. */
function checkRows(dir: string, name: string, rows: ArrayLike<number>, height: number): void {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as number;
    if (!Number.isInteger(row) || row < 0 || row >= height) throw new RangeError(`${dir}: ${name} (shared): row ${row} (entry ${i} of the rows asked) is outside 0…${height - 1}`);
  }
}
