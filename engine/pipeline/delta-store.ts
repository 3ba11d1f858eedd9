/**
 * Each tensor's unit directions Δ_b, computed once per curvature stage and read back on every
 * later pass, without holding them all in memory.
 *
 *   const store = await DeltaStore.open(scratchPath?, budget?)   no path: memory only (then recomputed beyond it)
 *   await store.get(name, compute) → TensorDelta[]         compute() runs once per tensor (while it fits)
 *   await store.close()                                    deletes the scratch file
 *
 * Up to 128 MiB stay in memory (all of a demo pair's; row-sparse ones, such as the think rows
 * of a 151,936-row embedding, always do — they are a few rows); the rest go to the scratch file,
 * up to 8 GiB, and are read back per pass: a read from the page cache instead of the
 * θ_I/θ_T reads, BF16 widening, threshold and GSP projection that recomputing Δ costs, and no
 * resident copy (28-layer Qwen3-0.6B: 1.76 GB of Δ). Beyond both they are recomputed per pass.
 * Values go through the file as float32 bytes, so what is read back is bit-identical.
 * The file's index lives in memory: a resumed stage writes a new one.
 *
 *   await store.seal() → SealedDeltas | undefined   every Δ kept so far also in the file, and its index
 *   await DeltaStore.openSealed(sealed)             another thread's read-only view: every get reads the file
 *
 * Sealing is for passes on worker threads (curvature-workers.ts): each opens the file read-only
 * and reads each Δ back when a pass needs it (from the page cache, no resident copy per thread).
 * A store that had to recompute something (beyond both budgets) cannot be sealed.
 * A vocab-sized Δ over every row (an untied lm_head's blend) is not kept here: the passes form it
 * by rows as they read it (rowwise-deltas.ts).
 */
import { open, rm, type FileHandle } from 'node:fs/promises';

/** How many bytes of Δ stay in memory and how many go to the scratch file. */
export interface DeltaBudget {
  readonly memoryBytes: number;
  readonly scratchBytes: number;
}

const DEFAULT_BUDGET: DeltaBudget = { memoryBytes: 128 * 2 ** 20, scratchBytes: 8 * 2 ** 30 };

/** Δ of one tensor along one direction: whole, or (`rows` set) only those rows, `width` values each. */
export interface TensorDelta {
  readonly direction: number;
  readonly values: Float32Array;
  readonly rows?: Int32Array;
  readonly width?: number;
}

/** Where one Δ lies in the scratch file (`rows`, `width`: a row-sparse Δ's). */
interface Spilled {
  readonly direction: number;
  readonly offset: number;
  readonly length: number;
  readonly rows?: readonly number[];
  readonly width?: number;
}

/** A sealed scratch file and where each tensor's Δ lie in it: plain data, for a worker's workerData. */
export interface SealedDeltas {
  readonly path: string;
  readonly tensors: readonly (readonly [string, readonly Spilled[]])[];
}

export class DeltaStore {
  private readonly memory = new Map<string, TensorDelta[]>();
  private readonly spilled = new Map<string, Spilled[]>();
  private memoryBytes = 0;
  private scratchBytes = 0;
  /** Something was over both budgets: it is recomputed per get, so the store cannot be sealed. */
  private overBudget = false;

  private constructor(private readonly path: string | undefined, private readonly file: FileHandle | undefined, private readonly budget: DeltaBudget, private readonly owned = true) {}

  static async open(path?: string, budget: DeltaBudget = DEFAULT_BUDGET): Promise<DeltaStore> {
    return new DeltaStore(path, path === undefined ? undefined : await open(path, 'w+'), budget);
  }

  /** A read-only view of a sealed store: no memory part, nothing computed, the file left in place on close. */
  static async openSealed(sealed: SealedDeltas): Promise<DeltaStore> {
    const store = new DeltaStore(sealed.path, await open(sealed.path, 'r'), { memoryBytes: 0, scratchBytes: 0 }, false);
    for (const [name, spilled] of sealed.tensors) store.spilled.set(name, [...spilled]);
    return store;
  }

  /** Writes what memory holds to the file too and returns the whole index; undefined when a Δ was never kept or there is no file. */
  async seal(): Promise<SealedDeltas | undefined> {
    if (this.path === undefined || this.file === undefined || this.overBudget) return undefined;
    for (const [name, deltas] of this.memory) {
      if (!this.spilled.has(name)) this.spilled.set(name, await Promise.all(deltas.map((d) => this.spill(d))));
    }
    return { path: this.path, tensors: [...this.spilled] };
  }

  async get(name: string, compute: () => Promise<TensorDelta[]>): Promise<TensorDelta[]> {
    const kept = this.memory.get(name);
    if (kept !== undefined) return kept;
    const spilled = this.spilled.get(name);
    if (spilled !== undefined) return Promise.all(spilled.map((s) => this.readBack(s)));
    const deltas = await compute();
    const bytes = deltas.reduce((sum, d) => sum + d.values.byteLength, 0);
    if (deltas.some((d) => d.rows !== undefined) || this.memoryBytes + bytes <= this.budget.memoryBytes) {
      this.memory.set(name, deltas);
      this.memoryBytes += bytes;
    } else if (this.file !== undefined && this.scratchBytes + bytes <= this.budget.scratchBytes) {
      this.spilled.set(name, await Promise.all(deltas.map((d) => this.spill(d))));
    } else {
      this.overBudget = true;
    }
    return deltas;
  }

  /** Closes the file and deletes it (a sealed view leaves it to its owner). */
  async close(): Promise<void> {
    await this.file?.close();
    if (this.path !== undefined && this.owned) await rm(this.path, { force: true });
  }

  private async spill(delta: TensorDelta): Promise<Spilled> {
    const file = this.file as FileHandle;
    const offset = this.scratchBytes;
    this.scratchBytes += delta.values.byteLength;
    await file.write(new Uint8Array(delta.values.buffer, delta.values.byteOffset, delta.values.byteLength), 0, delta.values.byteLength, offset);
    const rows = delta.rows === undefined || delta.width === undefined ? {} : { rows: Array.from(delta.rows), width: delta.width };
    return { direction: delta.direction, offset, length: delta.values.length, ...rows };
  }

  private async readBack(spilled: Spilled): Promise<TensorDelta> {
    const values = new Float32Array(spilled.length);
    const { bytesRead } = await (this.file as FileHandle).read(new Uint8Array(values.buffer), 0, values.byteLength, spilled.offset);
    if (bytesRead !== values.byteLength) throw new RangeError(`${this.path ?? 'the Δ scratch file'}: ${bytesRead} of ${values.byteLength} bytes read back at ${spilled.offset}`);
    const { rows, width } = spilled;
    return rows === undefined || width === undefined ? { direction: spilled.direction, values } : { direction: spilled.direction, values, rows: Int32Array.from(rows), width };
  }
}
