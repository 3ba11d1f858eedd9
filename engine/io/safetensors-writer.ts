/**
 * Streaming safetensors writer. The header is laid out from the tensor specs up front, then each
 * tensor's bytes are appended as they arrive, so only one tensor is ever held in memory.
 *
 * Write-behind: a tensor smaller than STAGE_BYTES is copied into a staging buffer and `write`
 * returns at once; a full stage is written while the next one fills (two stages, one write in
 * flight). So an export of thousands of small tensors (a 30B MoE has 18,867) makes one write per
 * 8 MiB instead of one per tensor, and the disk works while the caller computes the next tensor:
 * under load each round trip through libuv's pool waits for a core, which made the export wait
 * about a quarter of its time. A larger tensor is written straight from the caller's array (a
 * copy would cost what it saves), after the staged bytes before it.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import { CheckpointError } from './checkpoint-error.ts';
import { byteSize, encodeTensor, type TensorPayload, type TensorSpec } from './tensor-encoding.ts';

/** The header key reserved for string metadata; no tensor may have this name. */
const METADATA_KEY = '__metadata__';

/**
 * The header JSON, space-padded so the data area starts 8-byte aligned (as HF's writer does).
 * Built with Object.fromEntries, which defines every key as its own property: assigning into a
 * plain object would turn a tensor named "__proto__" into a prototype change and drop it.
 */
function buildHeader(specs: readonly TensorSpec[], metadata?: Readonly<Record<string, string>>): Buffer {
  const entries: [string, unknown][] = [];
  if (metadata !== undefined && Object.keys(metadata).length > 0) entries.push([METADATA_KEY, Object.fromEntries(Object.entries(metadata))]);
  let offset = 0;
  for (const spec of specs) {
    const size = byteSize(spec);
    entries.push([spec.name, { dtype: spec.dtype, shape: spec.shape, data_offsets: [offset, offset + size] }]);
    offset += size;
  }
  const json = Buffer.from(JSON.stringify(Object.fromEntries(entries)), 'utf8');
  const padded = Buffer.alloc(Math.ceil((json.length + 8) / 8) * 8 - 8, 0x20);
  json.copy(padded);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(padded.length));
  return Buffer.concat([prefix, padded]);
}

/** Bytes staged before a write; tensors this size or larger are written from the caller's array. */
export const STAGE_BYTES = 8 * 1024 ** 2;

/**
 * Stage buffers of closed writers, for the next writer: a fresh 8 MiB array costs about 7 ms of
 * zeroing and page faults, more than writing a file of a few MB (the gradient store writes one
 * per layer and batch). At most two are kept (16 MiB per thread).
 */
const spareStages: Uint8Array<ArrayBuffer>[] = [];
const MAX_SPARE_STAGES = 2;

export interface WriteOptions {
  /** Sync the file to disk before closing it (default true). */
  readonly sync?: boolean;
}

export class SafetensorsFileWriter {
  private next = 0;
  private position: number;
  private stage = new Uint8Array(0);
  private spare = new Uint8Array(0);
  private staged = 0;
  /** The write of the previous stage, if one is in flight; it never rejects (see `failure`). */
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown = undefined;

  private constructor(
    readonly path: string,
    private readonly specs: readonly TensorSpec[],
    private readonly handle: FileHandle,
    headerLength: number,
  ) {
    this.position = headerLength;
  }

  static async create(path: string, specs: readonly TensorSpec[], metadata?: Readonly<Record<string, string>>): Promise<SafetensorsFileWriter> {
    const names = new Set<string>();
    for (const spec of specs) {
      if (names.has(spec.name)) throw new CheckpointError('duplicate', path, 'is planned twice', spec.name);
      if (spec.name === METADATA_KEY) throw new CheckpointError('header-entry', path, 'is the name safetensors reserves for metadata', spec.name);
      names.add(spec.name);
    }
    const header = buildHeader(specs, metadata);
    const handle = await guardWrite(path, undefined, () => open(path, 'wx'));
    const writer = new SafetensorsFileWriter(path, specs, handle, header.length);
    await writer.writeAt(header, 0);
    return writer;
  }

  /** Appends the next tensor; tensors must arrive in the order of the specs. */
  async write(name: string, data: TensorPayload): Promise<void> {
    const spec = this.specs[this.next];
    if (spec === undefined || spec.name !== name) {
      throw new CheckpointError('write', this.path, `written out of order (expected ${spec === undefined ? 'no more tensors' : `"${spec.name}"`})`, name);
    }
    const bytes = encodeTensor(this.path, spec, data);
    this.throwFailure();
    if (bytes.length >= STAGE_BYTES) {
      await this.drain();
      await this.writeAt(bytes, this.position, name);
    } else {
      if (this.staged + bytes.length > this.stage.length) await this.flush();
      if (this.stage.length === 0) this.stage = spareStages.pop() ?? new Uint8Array(STAGE_BYTES);
      this.stage.set(bytes, this.staged);
      this.staged += bytes.length;
    }
    this.position += bytes.length;
    this.next++;
  }

  /** Starts writing the staged bytes (after the write before it) and stages into the other buffer. */
  private async flush(): Promise<void> {
    await this.inFlight;
    this.throwFailure();
    if (this.staged === 0) return;
    // position already counts the staged tensors: the stage starts where the first of them begins.
    this.inFlight = this.writeAt(this.stage.subarray(0, this.staged), this.position - this.staged).catch((error: unknown) => { this.failure = error; });
    [this.stage, this.spare, this.staged] = [this.spare, this.stage, 0];
  }

  /** Writes every staged byte and waits for it; rethrows a failed write. */
  private async drain(): Promise<void> {
    await this.flush();
    await this.inFlight;
    this.throwFailure();
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Flushes to disk and closes; fails if any planned tensor was not written. `sync: false` leaves
   * the flush to the caller, who syncs many files at once (the gradient store at a batch's commit).
   */
  async close(options: WriteOptions = {}): Promise<void> {
    try {
      if (this.next !== this.specs.length) {
        throw new CheckpointError('write', this.path, `closed after ${this.next} of ${this.specs.length} tensors`);
      }
      await this.drain();
      if (options.sync !== false) await guardWrite(this.path, undefined, () => this.handle.sync());
    } finally {
      await this.inFlight;
      this.releaseStages();
      await this.handle.close();
    }
  }

  /** Closes without completing (the caller removes the file or its directory). */
  async abort(): Promise<void> {
    await this.inFlight;
    this.releaseStages();
    await this.handle.close().catch(() => undefined);
  }

  /** Hands the stage buffers on to the next writer; called once no write of them is in flight. */
  private releaseStages(): void {
    for (const buffer of [this.stage, this.spare]) if (buffer.length === STAGE_BYTES && spareStages.length < MAX_SPARE_STAGES) spareStages.push(buffer);
    this.stage = new Uint8Array(0);
    this.spare = new Uint8Array(0);
  }

  private async writeAt(bytes: Uint8Array, position: number, tensor?: string): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await guardWrite(this.path, tensor, () =>
        this.handle.write(bytes, done, bytes.length - done, position + done),
      );
      done += bytesWritten;
    }
  }
}

/** Runs a file-system write and turns its failure (full disk, permissions…) into a CheckpointError. */
export async function guardWrite<T>(path: string, tensor: string | undefined, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const detail =
      code === 'ENOSPC' ? 'disk full while writing' :
      code === 'EEXIST' ? 'already exists' :
      code === 'EACCES' || code === 'EPERM' ? 'permission denied while writing' :
      `write failed: ${(error as Error).message}`;
    throw new CheckpointError(code === 'EEXIST' ? 'exists' : 'write', path, detail, tensor);
  }
}

/** Writes a whole small file in one go (tests, fixtures, the demo pair); removes it on failure. */
export async function writeSafetensors(
  path: string,
  tensors: readonly { spec: TensorSpec; data: TensorPayload }[],
  metadata?: Readonly<Record<string, string>>,
  options: WriteOptions = {},
): Promise<void> {
  const writer = await SafetensorsFileWriter.create(path, tensors.map((t) => t.spec), metadata);
  try {
    for (const { spec, data } of tensors) await writer.write(spec.name, data);
    await writer.close(options);
  } catch (error) {
    await writer.abort();
    await rm(path, { force: true });
    throw error;
  }
}
