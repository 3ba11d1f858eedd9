/**
 * Running per-layer gradient sums on disk, resumable batch by batch.
 *
 *   const store = await GradientStore.open(dir);     // resumes after store.batchesDone batches
 *   await store.addLayer(layer, grads)               // per layer of the current batch, any order
 *   await store.addLayer(layer, grads, batch)        // a later batch whose predecessor's layer is written
 *   await store.commitBatch()                        // the batch is in every layer's sum
 *   await store.readLayer(layer) → Map<name, Float32Array>
 *   await store.openLayer(layer) → SafetensorsFile          (the same sums, read tensor by tensor; close it)
 *   await GradientStore.readCommitted(dir, layer, names)   some tensors, read-only (views after the analysis)
 *
 * Files are generations: `layer_{l}@{n}.safetensors` holds the sum over the first n batches.
 * A batch reads generation n and writes n+1; only after every layer is written and flushed to
 * disk does progress.json move to n+1 (an atomic rename), and generation n is deleted. Each
 * layer file's flush starts as soon as it is written, in the background and one file at a time
 * (one libuv thread: the fold's own reads and writes do not queue behind a row of fsyncs), and
 * the commit waits for them: the worker producing the next layer never waits for a flush, and
 * the disk writes overlap the batch's compute instead of all coming at its commit (at 28 layers
 * 1.76 GB a batch, which at the last batch nothing else overlapped). A crash or cancel
 * mid-batch therefore leaves generation n intact and some stray n+1 files, which open() removes:
 * the store is never half-added. Only one layer's gradients are in memory at a time.
 * Batches computed in parallel (gradients-stage.ts) add layer l of batch b + 1 once batch b's
 * layer l is written, and commit in batch order, so several generations may exist until then.
 */
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '../io/json-file.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { guardWrite, SafetensorsFileWriter } from '../io/safetensors-writer.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';

const PROGRESS_FILE = 'progress.json';
const progressSchema = z.strictObject({ batchesDone: z.int().nonnegative() });
const LAYER_FILE = /^layer_(\d+)@(\d+)\.safetensors$/;
const layerFile = (dir: string, layer: number, generation: number) => join(dir, `layer_${layer}@${generation}.safetensors`);

export class GradientStore {
  /**
   * Arrays addLayer reads previous sums into, reused from call to call: a fresh array per tensor
   * and batch costs page faults and garbage collections on the main thread, whose cores the
   * workers need. One per addLayer in progress (a few layers fold at once); freed with the store.
   */
  private readonly sumArrays: Float32Array[] = [];

  /** Each written layer file's flush in progress (flushSoon), by path, until a commit waits for it. */
  private readonly flushes = new Map<string, Promise<void>>();
  private flushQueue: Promise<void> = Promise.resolve();

  private constructor(readonly dir: string, private done: number) {}

  static async open(dir: string): Promise<GradientStore> {
    await mkdir(dir, { recursive: true });
    const progress = (await readJsonFile(join(dir, PROGRESS_FILE), progressSchema, 'a gradient progress file'))?.batchesDone ?? 0;
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files) {
      const m = LAYER_FILE.exec(file);
      if (m !== null && Number(m[2]) !== progress) await rm(join(dir, file), { force: true });
    }
    return new GradientStore(dir, progress);
  }

  get batchesDone(): number {
    return this.done;
  }

  /**
   * Writes generation batch + 1 of `layer`: generation `batch` (default: the committed one) plus
   * `grads`, tensor by tensor: each previous sum is read into one reused array, `grads` added,
   * and written before the next is read.
   */
  async addLayer(layer: number, grads: ReadonlyMap<string, Float32Array>, batch = this.done): Promise<void> {
    const path = this.file(layer, batch + 1);
    await rm(path, { force: true });
    const previous = batch === 0 ? undefined : {
      file: await SafetensorsFile.open(this.file(layer, batch)),
      sum: this.takeSumArray(Math.max(0, ...[...grads.values()].map((g) => g.length))),
    };
    let writer: SafetensorsFileWriter | undefined;
    try {
      writer = await SafetensorsFileWriter.create(path, [...grads].map(([name, g]) => ({ name, dtype: 'F32' as const, shape: [g.length] })));
      for (const [name, g] of grads) {
        const added = previous === undefined ? g : addInto(await previous.file.readFloat32(name, previous.sum), g);
        await writer.write(name, added);
      }
      // Not synced here: flushed in the background, and commitBatch waits for that.
      await writer.close({ sync: false });
      this.flushSoon(path);
    } catch (error) {
      await writer?.abort();
      await rm(path, { force: true });
      throw error;
    } finally {
      if (previous !== undefined) {
        await previous.file.close();
        this.sumArrays.push(previous.sum);
      }
    }
  }

  async commitBatch(): Promise<void> {
    const previous = this.done;
    const written = (await readdir(this.dir)).filter((file) => Number(LAYER_FILE.exec(file)?.[2]) === previous + 1);
    await Promise.all(written.map((file) => this.flushed(join(this.dir, file))));
    await writeFileAtomic(join(this.dir, PROGRESS_FILE), JSON.stringify({ batchesDone: previous + 1 }));
    this.done = previous + 1;
    for (const file of await readdir(this.dir)) {
      const m = LAYER_FILE.exec(file);
      if (m !== null && Number(m[2]) === previous) await rm(join(this.dir, file), { force: true });
    }
  }

  /**
   * The named tensors of one layer's committed sum (absent names are left out), read without
   * open(): open() removes stray generations, which would race an analysis writing this store.
   * Only these tensors are read, not the layer's whole file.
   */
  static async readCommitted(dir: string, layer: number, names: readonly string[]): Promise<Map<string, Float32Array>> {
    const progress = await readJsonFile(join(dir, PROGRESS_FILE), progressSchema, 'a gradient progress file');
    const out = new Map<string, Float32Array>();
    if (progress === undefined || progress.batchesDone === 0) return out;
    const file = await SafetensorsFile.open(layerFile(dir, layer, progress.batchesDone));
    try {
      for (const name of names) if (file.tensors.has(name)) out.set(name, await file.readFloat32(name));
    } finally {
      await file.close();
    }
    return out;
  }

  /** The summed gradients of one layer over every committed batch. */
  readLayer(layer: number): Promise<Map<string, Float32Array>> {
    return this.readGeneration(layer, this.done);
  }

  /** The same layer's file open, for a reader that reads its tensors one at a time into its own arrays (the gates stage). */
  openLayer(layer: number): Promise<SafetensorsFile> {
    return SafetensorsFile.open(this.file(layer, this.done));
  }

  /** Queues the file's flush behind the others; its failure is reported by the commit that waits for it. */
  private flushSoon(path: string): void {
    const flush = this.flushQueue.then(() => flushFile(path));
    this.flushQueue = flush.catch(() => undefined);
    this.flushes.set(path, flush);
  }

  /** The file's queued flush (a file written before this store opened it is flushed now). */
  private flushed(path: string): Promise<void> {
    const flush = this.flushes.get(path) ?? flushFile(path);
    this.flushes.delete(path);
    return flush;
  }

  private takeSumArray(length: number): Float32Array {
    const fits = this.sumArrays.findIndex((array) => array.length >= length);
    return fits < 0 ? new Float32Array(length) : (this.sumArrays.splice(fits, 1)[0] as Float32Array);
  }

  private readGeneration(layer: number, generation: number): Promise<Map<string, Float32Array>> {
    return SafetensorsFile.readAllFloat32(this.file(layer, generation));
  }

  private file(layer: number, generation: number): string {
    return layerFile(this.dir, layer, generation);
  }
}

/** sum[i] + g[i] into sum, in that order (as the sums were always added), returned. */
function addInto(sum: Float32Array, g: Float32Array): Float32Array {
  if (sum.length !== g.length) throw new RangeError(`gradient store: a sum of ${sum.length} values meets a gradient of ${g.length}`);
  for (let i = 0; i < g.length; i++) sum[i] = (sum[i] as number) + (g[i] as number);
  return sum;
}

async function flushFile(path: string): Promise<void> {
  const handle = await guardWrite(path, undefined, () => open(path, 'r+'));
  try {
    await guardWrite(path, undefined, () => handle.datasync());
  } finally {
    await handle.close();
  }
}
