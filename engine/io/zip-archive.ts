/**
 * The zip container of a `torch.save` file (PKWARE APPNOTE 6.3): entries found through the
 * central directory, STORED or DEFLATE data, zip64 sizes and offsets; and a writer of STORED
 * entries. Every entry read is checked against its size and CRC-32, and every structural fault is
 * a CheckpointError naming the file (and the entry), never a wrong byte handed on.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { CheckpointError } from './checkpoint-error.ts';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EXTRA = 0x0001;
const STORED = 0;
const DEFLATE = 8;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
/** The end record is 22 bytes followed by a comment of at most 65535 bytes. */
const END_SEARCH_SPAN = 22 + U16_MAX;

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

export class ZipArchive {
  private constructor(
    readonly file: string,
    private readonly bytes: Buffer,
    private readonly entries: ReadonlyMap<string, ZipEntry>,
  ) {}

  /** Parses the central directory of a whole zip file held in memory. */
  static parse(file: string, bytes: Buffer): ZipArchive {
    const entries = new Map<string, ZipEntry>();
    for (const entry of readCentralDirectory(file, bytes)) {
      if (entries.has(entry.name)) throw new CheckpointError('archive', file, `zip entry "${entry.name}" appears twice`);
      entries.set(entry.name, entry);
    }
    return new ZipArchive(file, bytes, entries);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's uncompressed bytes, size and CRC-32 verified. */
  read(name: string): Buffer {
    const entry = this.entries.get(name);
    if (entry === undefined) throw new CheckpointError('archive', this.file, `zip entry "${name}" is missing`);
    const fail = (detail: string) => new CheckpointError('archive', this.file, `zip entry "${name}": ${detail}`);
    const at = entry.localOffset;
    if (at + 30 > this.bytes.length || this.bytes.readUInt32LE(at) !== LOCAL_HEADER) throw fail('local header missing (truncated or corrupt zip)');
    const start = at + 30 + this.bytes.readUInt16LE(at + 26) + this.bytes.readUInt16LE(at + 28);
    if (start + entry.compressedSize > this.bytes.length) throw fail('data runs past the end of the file (truncated zip)');
    const stored = this.bytes.subarray(start, start + entry.compressedSize);
    const data = entry.method === STORED ? stored : inflate(stored, fail);
    if (data.length !== entry.size) throw fail(`holds ${data.length} bytes, the directory says ${entry.size}`);
    const actual = crc32(data);
    if (actual !== entry.crc) throw fail(`CRC-32 mismatch (${hex(actual)} computed, ${hex(entry.crc)} recorded)`);
    return data;
  }
}

function inflate(data: Buffer, fail: (detail: string) => CheckpointError): Buffer {
  try {
    return inflateRawSync(data);
  } catch (error) {
    throw fail(`DEFLATE data is corrupt (${error instanceof Error ? error.message : String(error)})`);
  }
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

interface DirectoryLocation {
  readonly count: number;
  readonly offset: number;
  readonly size: number;
}

function readCentralDirectory(file: string, bytes: Buffer): ZipEntry[] {
  const where = locateDirectory(file, bytes);
  const entries: ZipEntry[] = [];
  let at = where.offset;
  const end = where.offset + where.size;
  if (end > bytes.length) throw new CheckpointError('archive', file, 'the zip central directory runs past the end of the file (truncated zip)');
  for (let i = 0; i < where.count; i++) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== CENTRAL_HEADER) throw new CheckpointError('archive', file, `zip central directory entry ${i} is corrupt`);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const next = at + 46 + nameLength + extraLength + bytes.readUInt16LE(at + 32);
    if (next > end) throw new CheckpointError('archive', file, `zip central directory entry ${i} runs past the directory`);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    if ((bytes.readUInt16LE(at + 8) & 1) !== 0) throw new CheckpointError('archive', file, `zip entry "${name}" is encrypted`);
    const method = bytes.readUInt16LE(at + 10);
    if (method !== STORED && method !== DEFLATE) throw new CheckpointError('archive', file, `zip entry "${name}" uses compression method ${method}; only STORED (0) and DEFLATE (8) are read`);
    const sizes = widenZip64(bytes.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), {
      size: bytes.readUInt32LE(at + 24),
      compressedSize: bytes.readUInt32LE(at + 20),
      localOffset: bytes.readUInt32LE(at + 42),
    });
    if (sizes === undefined) throw new CheckpointError('archive', file, `zip entry "${name}" lacks the zip64 sizes its header promises`);
    entries.push({ name, method, crc: bytes.readUInt32LE(at + 16), ...sizes });
    at = next;
  }
  return entries;
}

function locateDirectory(file: string, bytes: Buffer): DirectoryLocation {
  const end = findEndRecord(bytes);
  if (end < 0) throw new CheckpointError('archive', file, 'is not a zip archive (no end-of-central-directory record; truncated?)');
  const plain = { count: bytes.readUInt16LE(end + 10), size: bytes.readUInt32LE(end + 12), offset: bytes.readUInt32LE(end + 16) };
  if (plain.count !== U16_MAX && plain.size !== U32_MAX && plain.offset !== U32_MAX) return plain;
  const locator = end - 20;
  if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR) throw new CheckpointError('archive', file, 'zip64 end-of-directory locator missing');
  const record = safeU64(bytes, locator + 8);
  if (record + 56 > bytes.length || bytes.readUInt32LE(record) !== ZIP64_END) throw new CheckpointError('archive', file, 'zip64 end-of-directory record missing');
  return { count: safeU64(bytes, record + 32), size: safeU64(bytes, record + 40), offset: safeU64(bytes, record + 48) };
}

/** Scans backwards, as the comment may hold anything; the last signature that fits wins. */
function findEndRecord(bytes: Buffer): number {
  const lowest = Math.max(0, bytes.length - END_SEARCH_SPAN);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (bytes.readUInt32LE(at) === END_OF_DIRECTORY && at + 22 + bytes.readUInt16LE(at + 20) === bytes.length) return at;
  }
  return -1;
}

/** 64-bit fields beyond 2^53 cannot address a file Node can hold; they read as a past-the-end offset. */
function safeU64(bytes: Buffer, at: number): number {
  const value = bytes.readBigUInt64LE(at);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

interface EntrySizes {
  readonly size: number;
  readonly compressedSize: number;
  readonly localOffset: number;
}

/** The zip64 extra field holds, in this order, each of the three fields saturated at 0xFFFFFFFF. */
function widenZip64(extra: Buffer, sizes: EntrySizes): EntrySizes | undefined {
  const saturated = (['size', 'compressedSize', 'localOffset'] as const).filter((field) => sizes[field] === U32_MAX);
  if (saturated.length === 0) return sizes;
  for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
    if (extra.readUInt16LE(at) !== ZIP64_EXTRA) continue;
    if (extra.readUInt16LE(at + 2) < 8 * saturated.length || at + 4 + 8 * saturated.length > extra.length) return undefined;
    const widened = { ...sizes };
    saturated.forEach((field, i) => { widened[field] = safeU64(extra, at + 4 + 8 * i); });
    return widened;
  }
  return undefined;
}

export interface ZipInput {
  readonly name: string;
  readonly data: Uint8Array;
}

/** Data offsets are padded to this, as torch.save does, so that a reader may map storages in place. */
const DATA_ALIGNMENT = 64;
const PADDING_EXTRA = 0x4246; // the id torch's writer uses for its padding field ("FB")
const DOS_DATE_1980_01_01 = 0x0021;

/**
 * A STORED zip of the given entries, as chunks to write in order. Entries and the archive stay
 * below 4 GiB (no zip64 writing): a bigger one is refused, naming the file.
 */
export function buildStoredZip(file: string, inputs: readonly ZipInput[]): Buffer[] {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const input of inputs) {
    const name = Buffer.from(input.name, 'utf8');
    const crc = crc32(input.data);
    const unpadded = offset + 30 + name.length + 4;
    const padding = (DATA_ALIGNMENT - (unpadded % DATA_ALIGNMENT)) % DATA_ALIGNMENT;
    const extra = Buffer.alloc(4 + padding);
    extra.writeUInt16LE(PADDING_EXTRA, 0);
    extra.writeUInt16LE(padding, 2);
    const local = entryHeader(LOCAL_HEADER, name, extra, crc, input.data.length, offset);
    if (offset + local.length + input.data.length > U32_MAX) throw new CheckpointError('write', file, `zip entry "${input.name}" would end past 4 GiB (zip64 is not written)`);
    chunks.push(local, Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength));
    central.push(entryHeader(CENTRAL_HEADER, name, Buffer.alloc(0), crc, input.data.length, offset));
    offset += local.length + input.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_DIRECTORY, 0);
  end.writeUInt16LE(inputs.length, 8);
  end.writeUInt16LE(inputs.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return [...chunks, directory, end];
}

/** A local (30-byte) or central (46-byte) header followed by its name and extra field. */
function entryHeader(signature: number, name: Buffer, extra: Buffer, crc: number, size: number, localOffset: number): Buffer {
  const isCentral = signature === CENTRAL_HEADER;
  const header = Buffer.alloc(isCentral ? 46 : 30);
  header.writeUInt32LE(signature, 0);
  const shift = isCentral ? 2 : 0; // the central header has "version made by" before the shared fields
  if (isCentral) header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 4 + shift); // version needed: 2.0
  header.writeUInt16LE(0x0800, 6 + shift); // flags: names are UTF-8
  header.writeUInt16LE(STORED, 8 + shift);
  header.writeUInt16LE(DOS_DATE_1980_01_01, 12 + shift);
  header.writeUInt32LE(crc, 14 + shift);
  header.writeUInt32LE(size, 18 + shift);
  header.writeUInt32LE(size, 22 + shift);
  header.writeUInt16LE(name.length, 26 + shift);
  header.writeUInt16LE(extra.length, 28 + shift);
  if (isCentral) header.writeUInt32LE(localOffset, 42);
  return Buffer.concat([header, name, extra]);
}
