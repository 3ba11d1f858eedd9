/**
 * An export's tensors produced in plan order, the small ones edited on worker threads ahead of the
 * writer while the main thread reads, writes and edits the large ones.
 *
 *   const edits = ParallelEdits.open(plan, instruct, thinking, { edit, method, workers })
 *   await edits.produce(spec) → payload   in plan order, as writeCheckpoint asks; notes in edits.notes
 *   await edits.close()
 *
 * Where a tensor is edited: F32/F16/BF16 on every side, at most OFFLOAD_MAX_VALUES values → an
 * edit worker (edit-worker.ts), its sides' stored bytes read on this thread (ReadAhead.readPacked)
 * into buffers that are transferred there and back, never copied; anything else (the embedding and
 * lm_head of a real model, F64, integer tensors) → this thread, into the two reusable arrays
 * (edited-tensor.ts), as without workers. Both paths run editedPayload, and the writer takes the
 * payloads in plan order, so the files are byte for byte those of the single-thread export.
 *
 * Reads are issued in plan order, one after the other, so each side's read-ahead sees the order it
 * was planned for. While the writer asks for a worker's tensor, the worker tensors after it are
 * started as long as their buffers fit AHEAD_BYTES (float32 bytes of both sides, rounded up to the
 * buffer sizes), so this thread reads and writes while the workers edit. A large tensor is started
 * only when the writer asks for it, and nothing is read ahead of it: the buffers kept for reuse
 * are dropped first, so its peak is the single-thread export's plus the workers' heaps (≈40 MB
 * each with their loader thread). Between large tensors the extra is at most the head tensor,
 * AHEAD_BYTES in flight, AHEAD_BYTES / 2 kept for reuse and the heaps: 70–90 MiB measured with
 * one worker, which takes a pair that met issue 14's bound (2 × the largest tensor + 256 MB) just
 * over it. Workers are opt-in (exportMerge's editWorkers): on the shared 2-core machine one worker
 * cost more CPU than it took off the main thread (ARCHITECTURE, compute profile).
 */
import type { Checkpoint, CheckpointTensor } from '../io/checkpoint.ts';
import type { TensorPayload, TensorSpec } from '../io/tensor-encoding.ts';
import type { PairedEdit } from '../crane/tensor-pair.ts';
import { copiedRaw, editedPayload, exportBuffers, isEdited, readSides, type ExportBuffers } from './edited-tensor.ts';
import { EditWorkerPool, type EditedTensor } from './edit-worker-pool.ts';
import type { EditJob, PackedSide } from './edit-worker-protocol.ts';
import type { PlannedTensor } from './export-plan.ts';
import type { RecipeMethod } from './recipe.ts';

/** Largest tensor an edit worker takes: 8 MiB a side as float32 (a 30B MoE's experts are 6 MiB), so two fit AHEAD_BYTES. */
export const OFFLOAD_MAX_VALUES = 2 * 1024 ** 2;
const AHEAD_BYTES = 32 * 1024 ** 2;
const MIN_BUFFER_BYTES = 64 * 1024;

export interface ParallelEditOptions {
  readonly edit: PairedEdit;
  /** The recipe's method, which each worker rebuilds the edit from. */
  readonly method: RecipeMethod;
  /** Edit workers; 0 edits every tensor on this thread. */
  readonly workers: number;
}

interface Produced {
  readonly payload: TensorPayload;
  readonly note?: string;
  /** A worker tensor's buffers and what they count against AHEAD_BYTES, both given back once it is written. */
  readonly inputs?: readonly ArrayBuffer[];
  readonly cost?: number;
}

export class ParallelEdits {
  readonly notes: string[] = [];
  private readonly order = new Map<string, number>();
  private readonly started = new Map<number, Promise<Produced>>();
  private next = 0;
  /** The last read issued; the next one starts when it has landed. */
  private reads: Promise<void> = Promise.resolve();
  private readonly spare = new Map<number, ArrayBuffer[]>();
  private spareBytes = 0;
  private aheadBytes = 0;
  /** The payload handed out last, whose buffers are free once the writer asks for the next one. */
  private written: Produced | null = null;

  private constructor(
    private readonly plan: readonly PlannedTensor[],
    private readonly instruct: Checkpoint,
    private readonly thinking: Checkpoint,
    private readonly edit: PairedEdit,
    private readonly buffers: ExportBuffers & { close(): Promise<void> },
    private readonly pool: EditWorkerPool | null,
  ) {
    plan.forEach((p, i) => this.order.set(p.spec.name, i));
  }

  static open(plan: readonly PlannedTensor[], instruct: Checkpoint, thinking: Checkpoint, options: ParallelEditOptions): ParallelEdits {
    const pool = options.workers > 0 && plan.some(offloadable) ? EditWorkerPool.start(options.workers, { method: options.method }) : null;
    return new ParallelEdits(plan, instruct, thinking, options.edit, exportBuffers(plan, instruct, thinking), pool);
  }

  async produce(spec: TensorSpec): Promise<TensorPayload> {
    for (const buffer of this.written?.inputs ?? []) this.giveBack(buffer);
    this.aheadBytes -= this.written?.cost ?? 0;
    this.written = null;
    const index = this.order.get(spec.name);
    if (index === undefined || (index < this.next && !this.started.has(index))) throw new RangeError(`${spec.name}: not planned, or asked for twice`);
    while (this.next <= index) this.start(this.next++);
    if (this.pool !== null && offloadable(this.plan[index] as PlannedTensor)) this.startAhead();
    else this.dropSpare();
    const produced = await (this.started.get(index) as Promise<Produced>);
    this.started.delete(index);
    if (produced.note !== undefined) this.notes.push(produced.note);
    this.written = produced;
    return produced.payload;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.reads;
    await this.buffers.close();
  }

  private startAhead(): void {
    while (this.next < this.plan.length) {
      const planned = this.plan[this.next] as PlannedTensor;
      if (!offloadable(planned) || this.aheadBytes + packedCost(planned) > AHEAD_BYTES) return;
      this.start(this.next++);
    }
  }

  private start(index: number): void {
    const planned = this.plan[index] as PlannedTensor;
    const work = this.pool !== null && offloadable(planned) ? this.onWorker(planned, this.pool) : this.onThisThread(planned);
    work.catch(() => undefined); // rethrown when the writer asks for this tensor; unasked after a failure
    this.started.set(index, work);
  }

  /** The step after the reads issued so far; the chain goes on whether or not it fails. */
  private afterReads<T>(step: () => Promise<T>): Promise<T> {
    const result = this.reads.then(step);
    this.reads = result.then(() => undefined, () => undefined);
    return result;
  }

  private async onThisThread(planned: PlannedTensor): Promise<Produced> {
    if (!isEdited(planned)) {
      const notes: string[] = [];
      const payload = await this.afterReads(() => copiedRaw(planned, this.instruct, this.thinking, notes));
      return { payload, ...(notes[0] === undefined ? {} : { note: notes[0] }) };
    }
    const sides = await this.afterReads(() => readSides(planned, this.instruct, this.thinking, this.buffers));
    const { instruct, thinking } = this.buffers;
    return editedPayload(planned.spec, sides.instruct, sides.thinking, this.edit, (v) => v.buffer === instruct.buffer || v.buffer === thinking.buffer);
  }

  private async onWorker(planned: PlannedTensor, pool: EditWorkerPool): Promise<Produced> {
    // Counted from now until the tensor is written (a failed export stops counting).
    const cost = packedCost(planned);
    this.aheadBytes += cost;
    // The job is posted inside the read step, wrapped so that the chain does not wait for the edit.
    const { edited } = await this.afterReads(async () => ({ edited: pool.run(await this.packedJob(planned)) }));
    const result: EditedTensor = await edited;
    return { payload: result.payload, inputs: result.inputs, cost, ...(result.note === undefined ? {} : { note: result.note }) };
  }

  private async packedJob(planned: PlannedTensor): Promise<EditJob> {
    const side = async (checkpoint: Checkpoint, info: CheckpointTensor | undefined, which: 'instruct' | 'thinking'): Promise<PackedSide | undefined> => {
      if (info === undefined) return undefined;
      const count = valuesOf(info);
      const buffer = this.take(count * 4);
      try {
        await this.buffers.readAhead[which].readPacked(info.name, new Float32Array(buffer, 0, count));
      } catch (error) {
        this.giveBack(buffer);
        throw error;
      }
      return { buffer, dtype: info.dtype as PackedSide['dtype'], count, shape: info.shape, file: checkpoint.location(info.name).path };
    };
    const instruct = await side(this.instruct, planned.instruct, 'instruct');
    const thinking = await side(this.thinking, planned.thinking, 'thinking');
    return { id: this.order.get(planned.spec.name) as number, spec: planned.spec, ...(instruct === undefined ? {} : { instruct }), ...(thinking === undefined ? {} : { thinking }) };
  }

  private take(bytes: number): ArrayBuffer {
    const size = bufferSize(bytes);
    const buffer = this.spare.get(size)?.pop();
    if (buffer === undefined) return new ArrayBuffer(size);
    this.spareBytes -= size;
    return buffer;
  }

  private giveBack(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    if (this.spareBytes + size > AHEAD_BYTES / 2) return; // enough kept: this one goes to the GC
    this.spare.set(size, [...(this.spare.get(size) ?? []), buffer]);
    this.spareBytes += size;
  }

  private dropSpare(): void {
    this.spare.clear();
    this.spareBytes = 0;
  }
}

function offloadable(planned: PlannedTensor): boolean {
  return [planned.instruct, planned.thinking].every((t) => t === undefined || ((t.dtype === 'F32' || t.dtype === 'F16' || t.dtype === 'BF16') && valuesOf(t) <= OFFLOAD_MAX_VALUES));
}

function valuesOf(tensor: CheckpointTensor): number {
  return tensor.shape.reduce((a, b) => a * b, 1);
}

/** A buffer's size: the next power of two, at least MIN_BUFFER_BYTES, so that freed buffers fit later tensors. */
function bufferSize(bytes: number): number {
  return Math.max(MIN_BUFFER_BYTES, 2 ** Math.ceil(Math.log2(Math.max(bytes, 1))));
}

function packedCost(planned: PlannedTensor): number {
  return [planned.instruct, planned.thinking].reduce((sum, t) => sum + (t === undefined ? 0 : bufferSize(valuesOf(t) * 4)), 0);
}
