/**
 * One side of an export read in runs: the small tensors the export will ask for, in its order,
 * grouped into byte ranges of one shard (≤ RUN_BYTES each) read with one call, the next run
 * read while the current one's tensors are edited.
 *
 *   new ReadAhead(checkpoint, tensors)   tensors: this side's, in the order readFiniteFloat32 will be called
 *   readAhead.readFiniteFloat32(name, into)   as Checkpoint.readFloat32, refusing NaN and ±Inf; from the run when the tensor is in one
 *   readAhead.readStored(name, into, start?)  an F32/F16/BF16 tensor's stored bytes (or a range of them), unchecked
 *   readAhead.close()
 *
 * Why: a Qwen3-30B-A3B pair has 18,867 tensors a side, most of them experts of a few MiB or
 * less. Read one by one, each costs a round trip through libuv's pool, and on a loaded machine
 * each of those waits for a core: the export spent a quarter of its wall time waiting so. In runs
 * it makes one read per 4 MiB, and the read overlaps the edit. Memory: two runs a side.
 *
 * A tensor larger than half a run is read on its own, straight into the caller's array; one
 * that is not F32/F16/BF16 through Checkpoint.readFloat32. Asked out of order, a run is read
 * again: slower, never wrong.
 *
 * Finiteness (the export refuses a NaN or ±Inf input, naming the shard and tensor): F16/BF16 are
 * tested inside the widening pass (half-float.ts widenCheckedInPlace), F32 on the stored words,
 * so the check adds no pass over a widened tensor; the first bad value is looked for only once
 * a test has failed.
 */
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import { DTYPE_BYTES } from '../io/dtype.ts';
import { assertFiniteStored, assertFiniteValues } from '../io/finite-values.ts';
import { widenCheckedInPlace } from '../io/half-float.ts';
import { openRegularFile } from '../io/input-file.ts';
import { readInto } from '../io/safetensors-reader.ts';

export const RUN_BYTES = 4 * 1024 ** 2;
/** Unused bytes between two tensors that a run still spans (padding some writers leave). */
const MAX_GAP_BYTES = 64 * 1024;

interface Run {
  /** The shard's path (Checkpoint.location). */
  readonly path: string;
  /** File offsets of the run's first and past-last byte. */
  readonly start: number;
  end: number;
  readonly first: string;
}

export class ReadAhead {
  private readonly runs: Run[] = [];
  /** Tensor name → index of its run and its file offset. */
  private readonly placed = new Map<string, { run: number; position: number }>();
  private readonly handles = new Map<string, Promise<FileHandle>>();
  private readonly slots = [new Uint8Array(0), new Uint8Array(0)];
  /** Per slot: the run it holds (or is reading) and that read. */
  private readonly loads: ({ run: number; done: Promise<void> } | null)[] = [null, null];

  constructor(private readonly checkpoint: Checkpoint, tensors: Iterable<CheckpointTensor>) {
    for (const tensor of tensors) {
      if (!isRunDType(tensor.dtype) || tensor.bytes > RUN_BYTES / 2) continue;
      const { path, position } = checkpoint.location(tensor.name);
      const last = this.runs.at(-1);
      const joins = last !== undefined && last.path === path && position >= last.end && position - last.end <= MAX_GAP_BYTES
        && position + tensor.bytes - last.start <= RUN_BYTES;
      if (joins) last.end = position + tensor.bytes;
      else this.runs.push({ path, start: position, end: position + tensor.bytes, first: tensor.name });
      this.placed.set(tensor.name, { run: this.runs.length - 1, position });
    }
  }

  /** See Checkpoint.readFloat32; `into` must hold the tensor. A NaN or ±Inf is a CheckpointError naming the shard and the tensor. */
  async readFiniteFloat32(name: string, into: Float32Array): Promise<Float32Array> {
    const tensor = this.checkpoint.tensor(name);
    const file = join(this.checkpoint.dir, tensor.shard);
    if (!isRunDType(tensor.dtype)) {
      const values = await this.checkpoint.readFloat32(name, into);
      assertFiniteValues(values, file, name, ...REFUSAL);
      return values;
    }
    const values = viewFor(tensor, into);
    const bytes = await this.readStored(name, storedBytesOf(tensor, values));
    return widenFinite(tensor, bytes, values, file);
  }

  /**
   * An F32/F16/BF16 tensor's stored bytes [start, start + into.length) into `into` (the whole
   * tensor by default), as they are in the file: for a caller that widens them itself
   * (export/elementwise-tensor.ts, a segment at a time) and so checks finiteness itself.
   */
  async readStored(name: string, into: Uint8Array, start = 0): Promise<Uint8Array> {
    const tensor = this.checkpoint.tensor(name);
    if (!isRunDType(tensor.dtype) || start < 0 || start + into.length > tensor.bytes) {
      throw new RangeError(`${name}: ${tensor.dtype} tensor of ${tensor.bytes} bytes, asked for ${into.length} bytes from ${start}`);
    }
    const placed = this.placed.get(name);
    if (placed === undefined) {
      const { path, position } = this.checkpoint.location(name);
      await readInto(await this.handle(path), path, position + start, into, name);
      return into;
    }
    const slot = await this.load(placed.run);
    this.load(placed.run + 1).catch(() => undefined); // read ahead; a failure surfaces when that run is asked for
    const offset = placed.position - (this.runs[placed.run] as Run).start + start;
    into.set(slot.subarray(offset, offset + into.length));
    return into;
  }

  async close(): Promise<void> {
    await Promise.all(this.loads.map((load) => load?.done.catch(() => undefined)));
    await Promise.all([...this.handles.values()].map(async (handle) => (await handle.catch(() => null))?.close()));
  }

  /** The run's bytes in its slot (run % 2), read unless already there or on their way. */
  private async load(index: number): Promise<Uint8Array> {
    const run = this.runs[index];
    if (run === undefined) return new Uint8Array(0);
    const slot = index % 2;
    const held = this.loads[slot];
    if (held?.run !== index) {
      const before = held?.done.catch(() => undefined);
      const done = (async () => {
        await before; // the slot's previous read must land before this one reuses the buffer
        if ((this.slots[slot] as Uint8Array).length < RUN_BYTES) this.slots[slot] = new Uint8Array(RUN_BYTES);
        // A file that ends early is an error naming it and the run's first tensor.
        const target = (this.slots[slot] as Uint8Array).subarray(0, run.end - run.start);
        await readInto(await this.handle(run.path), run.path, run.start, target, run.first);
      })();
      this.loads[slot] = { run: index, done };
    }
    await (this.loads[slot] as { done: Promise<void> }).done;
    return this.slots[slot] as Uint8Array;
  }

  private handle(path: string): Promise<FileHandle> {
    let handle = this.handles.get(path);
    if (handle === undefined) {
      handle = openRegularFile(path);
      this.handles.set(path, handle);
    }
    return handle;
  }
}

/** What the export's error says after the tensor and the bad value. */
const REFUSAL = ['contains', 'nothing was written'] as const;

function isRunDType(dtype: string): dtype is 'F32' | 'F16' | 'BF16' {
  return dtype === 'F32' || dtype === 'F16' || dtype === 'BF16';
}

/** The first elements of `into` that will hold the tensor as float32. */
function viewFor(tensor: CheckpointTensor, into: Float32Array): Float32Array {
  const count = tensor.bytes / DTYPE_BYTES[tensor.dtype];
  if (into.length < count) throw new RangeError(`${tensor.name}: ${count} values do not fit a buffer of ${into.length}`);
  return into.subarray(0, count);
}

/** Where the stored bytes go: the whole view for F32, its upper half for F16/BF16 (widened in place from there). */
function storedBytesOf(tensor: CheckpointTensor, values: Float32Array): Uint8Array {
  const offset = tensor.dtype === 'F16' || tensor.dtype === 'BF16' ? tensor.bytes : 0;
  return new Uint8Array(values.buffer, values.byteOffset + offset, tensor.bytes);
}

/** The stored bytes (in place, see storedBytesOf) as float32 values, refused if any is NaN or ±Inf. */
function widenFinite(tensor: CheckpointTensor, bytes: Uint8Array, values: Float32Array, file: string): Float32Array {
  if (tensor.dtype !== 'F16' && tensor.dtype !== 'BF16') {
    assertFiniteStored('F32', bytes, 0, file, tensor.name, ...REFUSAL);
    return values;
  }
  if (!widenCheckedInPlace(tensor.dtype, values)) assertFiniteValues(values, file, tensor.name, ...REFUSAL);
  return values;
}
