import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from './checkpoint-error.ts';
import { buildStoredZip, ZipArchive } from './zip-archive.ts';

const entries = [
  { name: 'a/data.pkl', data: Buffer.from('pickle bytes') },
  { name: 'a/data/0', data: Buffer.from(new Float32Array([1, 2, 3]).buffer) },
  { name: 'a/empty', data: Buffer.alloc(0) },
];
const stored = () => Buffer.concat(buildStoredZip('a.pt', entries));

/**
 * One entry laid out by hand (APPNOTE 4.3.7 / 4.3.12 / 4.3.16), DEFLATE-compressed, optionally
 * with its sizes and offset moved into a zip64 extra field and a zip64 end record.
 */
function handMadeZip(name: string, data: Buffer, zip64: boolean): Buffer {
  const compressed = deflateRawSync(data);
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(8, 8); // DEFLATE
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(compressed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const extra = Buffer.alloc(zip64 ? 28 : 0);
  if (zip64) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(24, 2);
    extra.writeBigUInt64LE(BigInt(data.length), 4);
    extra.writeBigUInt64LE(BigInt(compressed.length), 12);
    extra.writeBigUInt64LE(0n, 20); // local header offset
  }
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc32(data), 16);
  central.writeUInt32LE(zip64 ? 0xffffffff : compressed.length, 20);
  central.writeUInt32LE(zip64 ? 0xffffffff : data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt16LE(extra.length, 30);
  central.writeUInt32LE(zip64 ? 0xffffffff : 0, 42);
  const directoryOffset = local.length + nameBytes.length + compressed.length;
  const directory = Buffer.concat([central, nameBytes, extra]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : 1, 8);
  end.writeUInt16LE(zip64 ? 0xffff : 1, 10);
  end.writeUInt32LE(zip64 ? 0xffffffff : directory.length, 12);
  end.writeUInt32LE(zip64 ? 0xffffffff : directoryOffset, 16);
  const tail: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeBigUInt64LE(1n, 24);
    record.writeBigUInt64LE(1n, 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(directoryOffset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(directoryOffset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  return Buffer.concat([local, nameBytes, compressed, directory, ...tail, end]);
}

function refusal(read: () => unknown): CheckpointError {
  try {
    read();
  } catch (error) {
    if (error instanceof CheckpointError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('ZipArchive', () => {
  it('reads back what buildStoredZip wrote, with 64-byte aligned data', () => {
    const bytes = stored();
    const archive = ZipArchive.parse('a.pt', bytes);
    expect(archive.names()).toEqual(entries.map((entry) => entry.name));
    for (const entry of entries) expect(archive.read(entry.name)).toEqual(entry.data);
    const dataAt = bytes.indexOf(entries[1]?.data as Buffer);
    expect(dataAt % 64).toBe(0);
  });

  it.each([false, true])('reads a DEFLATE entry (zip64 directory: %s)', (zip64) => {
    const data = Buffer.from('the same words again and again and again, '.repeat(20));
    const archive = ZipArchive.parse('d.pt', handMadeZip('d/data.pkl', data, zip64));
    expect(archive.read('d/data.pkl')).toEqual(data);
  });

  it('refuses a truncated archive, naming the file', () => {
    const bytes = stored();
    expect(refusal(() => ZipArchive.parse('a.pt', bytes.subarray(0, bytes.length - 30))).message).toBe(
      'a.pt: is not a zip archive (no end-of-central-directory record; truncated?)',
    );
    expect(refusal(() => ZipArchive.parse('a.pt', Buffer.from('not a zip at all'))).code).toBe('archive');
  });

  it('refuses an entry whose bytes do not match its CRC-32', () => {
    const bytes = stored();
    const at = bytes.indexOf('pickle bytes');
    bytes.writeUInt8((bytes.readUInt8(at) ^ 0x01), at);
    expect(refusal(() => ZipArchive.parse('a.pt', bytes).read('a/data.pkl')).message).toMatch(/^a\.pt: zip entry "a\/data\.pkl": CRC-32 mismatch/);
  });

  it('refuses a missing entry and corrupt DEFLATE data, naming the entry', () => {
    expect(refusal(() => ZipArchive.parse('a.pt', stored()).read('a/data/7')).message).toBe('a.pt: zip entry "a/data/7" is missing');
    const bytes = handMadeZip('d/x', Buffer.from('some text to compress'), false);
    bytes.fill(0xff, 30 + 3, 30 + 8);
    expect(refusal(() => ZipArchive.parse('d.pt', bytes).read('d/x')).message).toMatch(/^d\.pt: zip entry "d\/x": (DEFLATE data is corrupt|CRC-32 mismatch|holds)/);
  });

  it('refuses a central directory pointing past the end of the file', () => {
    const bytes = stored();
    const end = bytes.length - 22;
    bytes.writeUInt32LE(bytes.length, end + 16); // directory offset at end of file
    expect(refusal(() => ZipArchive.parse('a.pt', bytes)).message).toContain('central directory runs past the end of the file');
  });
});
