/**
 * One side of an export read in runs: the small tensors the export will ask for, in its order,
 * grouped into byte ranges of one shard (≤ RUN_BYTES each) read with one call, the next run
 * read while the current one's tensors are edited.
 *
 *   new ReadAhead(checkpoint, tensors)   tensors: this side's, in the order readFloat32 will be called
 *   readAhead.readFloat32(name, into)     as Checkpoint.readFloat32; from the run when the tensor is in one
 *   readAhead.close()
 *
 * Why: a Qwen3-30B-A3B pair has 18,867 tensors a side, most of them experts of a few MiB or
 * less. Read one by one, each costs a round trip through libuv's pool, and on a loaded machine
 * each of those waits for a core: the export spent a quarter of its wall time waiting so. In runs
 * it makes one read per 4 MiB, and the read overlaps the edit. Memory: two runs a side.
 *
 * A tensor that is not F32/F16/BF16, or larger than half a run, is read on its own (into the
 * caller's array, as before). Asked out of order, a run is read again: slower, never wrong.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import { DTYPE_BYTES } from '../io/dtype.ts';
import { widenInPlace } from '../io/half-float.ts';
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
      if (!(tensor.dtype === 'F32' || tensor.dtype === 'F16' || tensor.dtype === 'BF16') || tensor.bytes > RUN_BYTES / 2) continue;
      const { path, position } = checkpoint.location(tensor.name);
      const last = this.runs.at(-1);
      const joins = last !== undefined && last.path === path && position >= last.end && position - last.end <= MAX_GAP_BYTES
        && position + tensor.bytes - last.start <= RUN_BYTES;
      if (joins) last.end = position + tensor.bytes;
      else this.runs.push({ path, start: position, end: position + tensor.bytes, first: tensor.name });
      this.placed.set(tensor.name, { run: this.runs.length - 1, position });
    }
  }

  /** See Checkpoint.readFloat32; `into` must hold the tensor. */
  async readFloat32(name: string, into: Float32Array): Promise<Float32Array> {
    const placed = this.placed.get(name);
    if (placed === undefined) return this.checkpoint.readFloat32(name, into);
    const slot = await this.load(placed.run);
    this.load(placed.run + 1).catch(() => undefined); // read ahead; a failure surfaces when that run is asked for
    const run = this.runs[placed.run] as Run;
    const tensor = this.checkpoint.tensor(name);
    const offset = placed.position - run.start;
    return fromBytes(tensor, slot.subarray(offset, offset + tensor.bytes), into);
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

/** The tensor's stored bytes as float32 in `into`'s first elements: F32 copied, F16/BF16 copied into the upper half and widened in place. */
function fromBytes(tensor: CheckpointTensor, bytes: Uint8Array, into: Float32Array): Float32Array {
  const count = bytes.length / DTYPE_BYTES[tensor.dtype];
  if (into.length < count) throw new RangeError(`${tensor.name}: ${count} values do not fit a buffer of ${into.length}`);
  const values = into.subarray(0, count);
  if (tensor.dtype !== 'F16' && tensor.dtype !== 'BF16') {
    new Uint8Array(values.buffer, values.byteOffset, bytes.length).set(bytes);
    return values;
  }
  new Uint8Array(values.buffer, values.byteOffset + bytes.length, bytes.length).set(bytes);
  return widenInPlace(tensor.dtype, values);
}
