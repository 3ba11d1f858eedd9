/**
 * Where a looped model's layer-wise backward keeps a layer's gradient parts until the layer's
 * last part (pass 0's) arrives.
 *
 *   const stash = new PassPartStash(passes, holdBytes)
 *   await stash.add(pass, layer, grads) → undefined, or every part of the layer in arrival order
 *   await stash.release()               removes whatever it spilled (call it on success and on error)
 *
 * The backward walks the last pass down first, so before pass 0 reaches a layer, (passes − 1)
 * passes of every layer's gradients wait: on a Nanbeige4.2-3B-shaped model about 15.6 GB of
 * float32. Up to `holdBytes` of them stay in memory; parts past that are written to a
 * safetensors file in a temporary folder and read back when their layer is complete, so the
 * backward's memory is bounded whatever the model's size. Values and their order are the same
 * either way (float32 to disk and back is exact), so sums over the parts are bit-identical.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';

export interface PassPart {
  readonly pass: number;
  readonly grads: Map<string, Float32Array>;
}

type Waiting = { readonly pass: number; readonly grads: Map<string, Float32Array>; readonly bytes: number } | { readonly pass: number; readonly file: string };

export class PassPartStash {
  private readonly waiting = new Map<number, Waiting[]>();
  private heldBytes = 0;
  private dir: string | undefined;
  private spills = 0;

  constructor(private readonly passes: number, private readonly holdBytes: number) {}

  /** Bytes of parts waiting in memory now. */
  get bytesHeld(): number {
    return this.heldBytes;
  }

  /** Spilled parts not yet read back. */
  get partsOnDisk(): number {
    let count = 0;
    for (const parts of this.waiting.values()) for (const part of parts) if ('file' in part) count++;
    return count;
  }

  async add(pass: number, layer: number, grads: Map<string, Float32Array>): Promise<PassPart[] | undefined> {
    const parts = this.waiting.get(layer) ?? [];
    if (parts.length + 1 < this.passes) {
      parts.push(await this.keep(pass, layer, grads));
      this.waiting.set(layer, parts);
      return undefined;
    }
    this.waiting.delete(layer);
    const complete: PassPart[] = [];
    for (const part of parts) complete.push(await this.restore(part));
    complete.push({ pass, grads });
    return complete;
  }

  async release(): Promise<void> {
    this.waiting.clear();
    this.heldBytes = 0;
    if (this.dir !== undefined) await rm(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private async keep(pass: number, layer: number, grads: Map<string, Float32Array>): Promise<Waiting> {
    let bytes = 0;
    for (const grad of grads.values()) bytes += grad.byteLength;
    if (this.heldBytes + bytes <= this.holdBytes) {
      this.heldBytes += bytes;
      return { pass, grads, bytes };
    }
    this.dir ??= await mkdtemp(join(tmpdir(), 'crane-pass-parts-'));
    const file = join(this.dir, `pass${pass}-layer${layer}-${this.spills++}.safetensors`);
    try {
      await writeSafetensors(file, [...grads].map(([name, data]) => ({ spec: { name, dtype: 'F32' as const, shape: [data.length] }, data })));
    } catch (error) {
      await rm(file, { force: true });
      throw new Error(`could not spill pass ${pass}'s gradients of layer ${layer} to ${file} (the backward of a looped model keeps them on disk past the memory budget): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return { pass, file };
  }

  private async restore(part: Waiting): Promise<PassPart> {
    if ('grads' in part) {
      this.heldBytes -= part.bytes;
      return { pass: part.pass, grads: part.grads };
    }
    const grads = await SafetensorsFile.readAllFloat32(part.file);
    await rm(part.file, { force: true });
    return { pass: part.pass, grads };
  }
}
