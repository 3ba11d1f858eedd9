/**
 * Lazy safetensors reader: opens a file handle, validates the header, and reads one tensor at a
 * time by offset. Never maps or reads the whole file, so memory stays at one tensor — or less:
 * `readRowsFloat32` reads chosen rows of a tensor, `streamRaw` its stored bytes chunk by chunk
 * through one reused buffer.
 */
import type { FileHandle } from 'node:fs/promises';
import { CheckpointError } from './checkpoint-error.ts';
import { DTYPE_BYTES, isFloatDType, viewAs, type FloatDType, type RawTensorData } from './dtype.ts';
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
    const info = this.floatInfo(name);
    const count = (info.end - info.begin) / DTYPE_BYTES[info.dtype];
    if (into !== undefined && into.length < count) throw new RangeError(`${name}: ${count} values do not fit a buffer of ${into.length}`);
    return this.readSpan(info, 0, into === undefined ? new Float32Array(count) : into.subarray(0, count));
  }

  /**
   * Rows of a floating tensor (indices along its first dimension) as float32, [rows.length × row
   * length] in the order asked (a row asked twice comes twice), widened as readFloat32 widens.
   * Only those rows' bytes are read, each distinct row once, consecutive rows in one read: the
   * lookup of a thousand tokens in a 151,936-row embedding reads 2 MB and holds no float32 copy
   * of the whole 622 MB. A run of rows is read straight into the output where its rows are first
   * asked one after another (a single row always is); only a run scattered over the output goes
   * through a scratch array. A repeated row is copied from its first place. A row that is not an
   * integer in 0…rows−1 is a RangeError naming the file, the tensor and where in `rows` it stands.
   */
  async readRowsFloat32(name: string, rows: ArrayLike<number>): Promise<Float32Array> {
    const info = this.floatInfo(name);
    const [height, ...rest] = info.shape;
    if (height === undefined) throw new CheckpointError('shape', this.path, 'is a scalar: it has no rows to read', name);
    const width = rest.reduce((a, b) => a * b, 1);
    const firstAsked = new Map<number, number>();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as number;
      if (!Number.isInteger(row) || row < 0 || row >= height) {
        throw new RangeError(`${this.path}: ${name}: row ${row} (entry ${i} of the rows asked) is outside 0…${height - 1}`);
      }
      if (!firstAsked.has(row)) firstAsked.set(row, i);
    }
    const placeOf = (row: number) => firstAsked.get(row) as number;
    const out = new Float32Array(rows.length * width);
    const distinct = [...firstAsked.keys()].sort((a, b) => a - b);
    let scratch = new Float32Array(0);
    for (let start = 0; start < distinct.length;) {
      const first = distinct[start] as number;
      let end = start + 1;
      let inPlace = true;
      for (; end < distinct.length && distinct[end] === first + end - start; end++) inPlace &&= placeOf(first + end - start) === placeOf(first) + end - start;
      const length = (end - start) * width;
      if (inPlace) {
        await this.readSpan(info, first * width, out.subarray(placeOf(first) * width, placeOf(first) * width + length));
      } else {
        if (scratch.length < length) scratch = new Float32Array(length);
        const run = await this.readSpan(info, first * width, scratch.subarray(0, length));
        for (let k = 0; k < end - start; k++) out.set(run.subarray(k * width, (k + 1) * width), placeOf(first + k) * width);
      }
      start = end;
    }
    for (let i = 0; i < rows.length; i++) {
      const from = placeOf(rows[i] as number);
      if (from !== i) out.copyWithin(i * width, from * width, (from + 1) * width);
    }
    return out;
  }

  /**
   * Streams a tensor's stored bytes through `scratch`, chunk by chunk: `consume(chunk, first)`
   * gets each chunk (a view of `scratch`, valid during the call only) and the flat index of its
   * first element. Memory stays at `scratch` however large the tensor. Its length and offset
   * must be multiples of 8, so that every chunk holds whole, aligned elements of any dtype.
   */
  async streamRaw(name: string, scratch: Uint8Array, consume: (chunk: Uint8Array, first: number) => void): Promise<void> {
    const info = this.info(name);
    if (scratch.byteLength === 0 || scratch.byteLength % 8 !== 0 || scratch.byteOffset % 8 !== 0) {
      throw new RangeError(`${name}: a scratch buffer of ${scratch.byteLength} bytes at offset ${scratch.byteOffset} is not a whole number of aligned 8-byte words`);
    }
    const total = info.end - info.begin;
    for (let done = 0; done < total; done += scratch.byteLength) {
      const chunk = scratch.subarray(0, Math.min(scratch.byteLength, total - done));
      await readInto(this.handle, this.path, this.header.dataStart + info.begin + done, chunk, name);
      consume(chunk, done / DTYPE_BYTES[info.dtype]);
    }
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

  private floatInfo(name: string): TensorInfo & { readonly dtype: FloatDType } {
    const info = this.info(name);
    if (!isFloatDType(info.dtype)) {
      throw new CheckpointError('dtype', this.path, `is ${info.dtype}, not a floating type (F64, F32, F16, BF16)`, name);
    }
    return { ...info, dtype: info.dtype };
  }

  /** Elements first… of a floating tensor as float32 into `values` (as many as it holds); returns `values`. */
  private async readSpan(info: TensorInfo & { readonly dtype: FloatDType }, first: number, values: Float32Array): Promise<Float32Array> {
    const size = DTYPE_BYTES[info.dtype];
    const position = this.header.dataStart + info.begin + first * size;
    const bytes = values.length * size;
    if (info.dtype === 'F64') {
      const wide = new Float64Array(values.length);
      await readInto(this.handle, this.path, position, new Uint8Array(wide.buffer), info.name);
      values.set(wide);
      return values;
    }
    // Half floats are read into the upper half of their float32 slots and widened in place.
    const offset = info.dtype === 'F32' ? 0 : bytes;
    await readInto(this.handle, this.path, position, new Uint8Array(values.buffer, values.byteOffset + offset, bytes), info.name);
    return info.dtype === 'F32' ? values : widenInPlace(info.dtype, values);
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
