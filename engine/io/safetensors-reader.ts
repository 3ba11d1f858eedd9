/**
 * Lazy safetensors reader: opens a file handle, validates the header, and reads one tensor at a
 * time by offset. Never maps or reads the whole file, so memory stays at one tensor.
 */
import type { FileHandle } from 'node:fs/promises';
import { CheckpointError } from './checkpoint-error.ts';
import { DTYPE_BYTES, isFloatDType, viewAs, type RawTensorData } from './dtype.ts';
import { widenInPlace } from './half-float.ts';
import { openRegularFile } from './input-file.ts';
import { checkHeaderLength, parseHeader, type SafetensorsHeader, type TensorInfo } from './safetensors-header.ts';

export class SafetensorsFile {
  private constructor(
    readonly path: string,
    readonly header: SafetensorsHeader,
    private readonly handle: FileHandle,
  ) {}

  static async open(path: string): Promise<SafetensorsFile> {
    const handle = await openRegularFile(path);
    try {
      const { size } = await handle.stat().catch((error: unknown) => {
        throw new CheckpointError('io', path, `cannot read its size: ${(error as Error).message}`);
      });
      const prefix = await readExactly(handle, path, 0, Math.min(8, size));
      const headerLength = checkHeaderLength(path, prefix, size);
      const headerBytes = await readExactly(handle, path, 8, headerLength);
      const header = parseHeader(path, headerBytes, size - 8 - headerLength);
      return new SafetensorsFile(path, header, handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  get tensors(): ReadonlyMap<string, TensorInfo> {
    return this.header.tensors;
  }

  get metadata(): Readonly<Record<string, string>> {
    return this.header.metadata;
  }

  info(name: string): TensorInfo {
    const info = this.header.tensors.get(name);
    if (info === undefined) throw new CheckpointError('not-found', this.path, 'no such tensor in this file', name);
    return info;
  }

  /** The tensor's bytes as its own typed array (F16/BF16 as raw 16-bit patterns). */
  async readRaw(name: string): Promise<RawTensorData> {
    const info = this.info(name);
    const bytes = await readExactly(this.handle, this.path, this.header.dataStart + info.begin, info.end - info.begin, name);
    return viewAs(info.dtype, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  /**
   * A floating tensor as float32 (F32 as stored, F16/BF16 widened exactly, F64 rounded to the
   * nearest float32: a value past float32's range becomes ±Infinity, which the finite checks
   * refuse by name). With
   * `into` (at least as long as the tensor) the values are read into its first elements and that
   * view is returned: a caller that reads many tensors reuses one array instead of fresh pages.
   */
  async readFloat32(name: string, into?: Float32Array): Promise<Float32Array> {
    const info = this.info(name);
    if (!isFloatDType(info.dtype)) {
      throw new CheckpointError('dtype', this.path, `is ${info.dtype}, not a floating type (F64, F32, F16, BF16)`, name);
    }
    const bytes = info.end - info.begin;
    const count = bytes / DTYPE_BYTES[info.dtype];
    if (into !== undefined && into.length < count) throw new RangeError(`${name}: ${count} values do not fit a buffer of ${into.length}`);
    const values = into === undefined ? new Float32Array(count) : into.subarray(0, count);
    if (info.dtype === 'F64') {
      values.set((await this.readRaw(name)) as Float64Array);
      return values;
    }
    // Half floats are read into the upper half of their float32 slots and widened in place.
    const offset = info.dtype === 'F32' ? 0 : bytes;
    await readInto(this.handle, this.path, this.header.dataStart + info.begin, new Uint8Array(values.buffer, values.byteOffset + offset, bytes), name);
    return info.dtype === 'F32' ? values : widenInPlace(info.dtype, values);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** Every tensor of a small file as float32, by name (gradient layer files, golden files). */
  static async readAllFloat32(path: string): Promise<Map<string, Float32Array>> {
    const file = await SafetensorsFile.open(path);
    try {
      const out = new Map<string, Float32Array>();
      for (const name of file.tensors.keys()) out.set(name, await file.readFloat32(name));
      return out;
    } finally {
      await file.close();
    }
  }
}

/** Reads exactly `length` bytes at `position` into a fresh (aligned) buffer. */
async function readExactly(handle: FileHandle, path: string, position: number, length: number, tensor?: string): Promise<Buffer> {
  // Allocate the backing store ourselves: Buffer.alloc of small sizes may share a pool at an
  // unaligned offset, which would break Float32Array/Float64Array views.
  const buffer = Buffer.from(new ArrayBuffer(Math.max(length, 0)));
  await readInto(handle, path, position, buffer, tensor);
  return buffer;
}

/** Fills `target` with the file's bytes at `position`; a short file is an error naming it (and `tensor`). */
export async function readInto(handle: FileHandle, path: string, position: number, target: Uint8Array, tensor?: string): Promise<void> {
  const length = target.byteLength;
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(target, done, length - done, position + done).catch((error: unknown) => {
      throw new CheckpointError('io', path, `read failed at offset ${position + done}: ${(error as Error).message}`, tensor);
    });
    if (bytesRead === 0) {
      throw new CheckpointError('truncated', path, `file ended after ${done} of ${length} bytes at offset ${position}`, tensor);
    }
    done += bytesRead;
  }
}
