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

interface Spilled {
  readonly direction: number;
  readonly offset: number;
  readonly length: number;
}

export class DeltaStore {
  private readonly memory = new Map<string, TensorDelta[]>();
  private readonly spilled = new Map<string, Spilled[]>();
  private memoryBytes = 0;
  private scratchBytes = 0;

  private constructor(private readonly path: string | undefined, private readonly file: FileHandle | undefined, private readonly budget: DeltaBudget) {}

  static async open(path?: string, budget: DeltaBudget = DEFAULT_BUDGET): Promise<DeltaStore> {
    return new DeltaStore(path, path === undefined ? undefined : await open(path, 'w+'), budget);
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
    }
    return deltas;
  }

  async close(): Promise<void> {
    await this.file?.close();
    if (this.path !== undefined) await rm(this.path, { force: true });
  }

  private async spill(delta: TensorDelta): Promise<Spilled> {
    const file = this.file as FileHandle;
    const offset = this.scratchBytes;
    this.scratchBytes += delta.values.byteLength;
    await file.write(new Uint8Array(delta.values.buffer, delta.values.byteOffset, delta.values.byteLength), 0, delta.values.byteLength, offset);
    return { direction: delta.direction, offset, length: delta.values.length };
  }

  private async readBack(spilled: Spilled): Promise<TensorDelta> {
    const values = new Float32Array(spilled.length);
    const { bytesRead } = await (this.file as FileHandle).read(new Uint8Array(values.buffer), 0, values.byteLength, spilled.offset);
    if (bytesRead !== values.byteLength) throw new RangeError(`${this.path ?? 'the Δ scratch file'}: ${bytesRead} of ${values.byteLength} bytes read back at ${spilled.offset}`);
    return { direction: spilled.direction, values };
  }
}
