/**
 * Parsing and validation of a safetensors header. Everything is checked before any tensor byte is
 * touched, so a corrupt file fails here with a message naming the file and the entry, and never
 * drives a huge allocation or a read outside the data area.
 *
 * The rules are the reference loader's (huggingface/safetensors `Metadata::validate` and
 * `SafeTensors::read_metadata`): the header is strict UTF-8 holding one JSON object, padded only
 * with trailing spaces; the tensors, sorted by offset, tile the data area exactly — the first
 * starts at 0, each begins where the previous ends, the last ends at the end of the file. So a
 * length prefix that is off by a few bytes (into the header's padding) is an error, not a file
 * whose every tensor is read shifted.
 */
import { CheckpointError } from './checkpoint-error.ts';
import { DTYPE_BYTES, isDType, type DType } from './dtype.ts';
import { decodeUtf8 } from './input-file.ts';
import { topLevelKeys } from './json-keys.ts';

/** Same cap as the reference Rust implementation: headers are metadata, never model data. */
export const MAX_HEADER_BYTES = 100_000_000;

export interface TensorInfo {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  /** Byte offsets relative to the start of the data area (after the header). */
  readonly begin: number;
  readonly end: number;
}

export interface SafetensorsHeader {
  /** Byte position where the data area starts: 8 + header length. */
  readonly dataStart: number;
  readonly tensors: ReadonlyMap<string, TensorInfo>;
  readonly metadata: Readonly<Record<string, string>>;
}

export function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Validates the 8-byte length prefix against the file size; returns the header length. */
export function checkHeaderLength(file: string, prefix: Buffer, fileSize: number): number {
  if (fileSize < 8) throw new CheckpointError('truncated', file, `file is ${fileSize} bytes, shorter than the 8-byte header length`);
  const length = prefix.readBigUInt64LE(0);
  if (length > BigInt(MAX_HEADER_BYTES)) {
    throw new CheckpointError('header-length', file, `header length ${length} exceeds the ${MAX_HEADER_BYTES}-byte cap (not a safetensors file?)`);
  }
  const n = Number(length);
  if (8 + n > fileSize) {
    throw new CheckpointError('truncated', file, `header length ${n} runs past the end of the ${fileSize}-byte file`);
  }
  if (n < 2) throw new CheckpointError('header-json', file, `header length ${n} is too short for a JSON object`);
  return n;
}

/** Parses and validates the JSON header; dataLength is the size of the data area in bytes. */
export function parseHeader(file: string, headerBytes: Buffer, dataLength: number): SafetensorsHeader {
  const text = decodeUtf8(file, headerBytes, 'header').replace(/ +$/, '');
  if (!text.startsWith('{') || !text.endsWith('}')) {
    const at = text.startsWith('{') ? `ends with ${printable(text.slice(-8))}` : `starts with ${printable(text.slice(0, 8))}`;
    throw new CheckpointError('header-json', file, `header is not a JSON object padded with spaces (it ${at}; header length prefix wrong?)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError('header-json', file, `header is not valid JSON (${(error as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CheckpointError('header-json', file, 'header is not a JSON object');
  }
  const seen = new Set<string>();
  for (const key of topLevelKeys(text)) {
    if (seen.has(key)) throw new CheckpointError('duplicate', file, 'appears twice in the header', key);
    seen.add(key);
  }
  const record = json as Record<string, unknown>;
  const metadata = parseMetadata(file, record['__metadata__']);
  const tensors = new Map<string, TensorInfo>();
  for (const [name, entry] of Object.entries(record)) {
    if (name === '__metadata__') continue;
    tensors.set(name, parseEntry(file, name, entry, dataLength));
  }
  checkTiling(file, tensors, dataLength);
  return { dataStart: 8 + headerBytes.length, tensors, metadata };
}

/** A null-prototype record: a key such as "constructor" or "__proto__" is only ever its own value. */
/** A JSON string literal with everything outside printable ASCII escaped (a BOM is invisible otherwise). */
function printable(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function parseMetadata(file: string, value: unknown): Record<string, string> {
  const metadata = Object.create(null) as Record<string, string>;
  if (value === undefined) return metadata;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CheckpointError('metadata', file, '__metadata__ must be an object of strings');
  }
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') {
      throw new CheckpointError('metadata', file, `__metadata__["${key}"] is ${typeof item}, not a string`);
    }
    metadata[key] = item;
  }
  return metadata;
}

function parseEntry(file: string, name: string, entry: unknown, dataLength: number): TensorInfo {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new CheckpointError('header-entry', file, 'entry is not an object', name);
  }
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  if (!isDType(dtype)) throw new CheckpointError('dtype', file, unreadableDtype(dtype), name);
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    throw new CheckpointError('shape', file, `shape ${JSON.stringify(shape)} is not a list of non-negative integers`, name);
  }
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((o) => Number.isSafeInteger(o) && (o as number) >= 0)
  ) {
    throw new CheckpointError('offsets', file, `data_offsets ${JSON.stringify(offsets)} are not two non-negative integers`, name);
  }
  const [begin, end] = offsets as [number, number];
  if (begin > end || end > dataLength) {
    throw new CheckpointError('offsets', file, `data_offsets [${begin}, ${end}] fall outside the ${dataLength}-byte data area`, name);
  }
  const bytes = numel(shape as number[]) * DTYPE_BYTES[dtype];
  if (!Number.isSafeInteger(bytes) || bytes !== end - begin) {
    throw new CheckpointError(
      'shape',
      file,
      `shape [${(shape as number[]).join(', ')}] × ${dtype} needs ${bytes} bytes but data_offsets span ${end - begin}`,
      name,
    );
  }
  return { name, dtype, shape: shape as number[], begin, end };
}

/** Safetensors dtypes of quantized and complex checkpoints: valid files, but no float32 reading of them is exact. */
const UNREAD_SAFETENSORS_DTYPES = new Set(['F8_E4M3', 'F8_E5M2', 'F8_E8M0', 'F6_E2M3', 'F6_E3M2', 'F4', 'C64']);

function unreadableDtype(dtype: unknown): string {
  if (typeof dtype === 'string' && UNREAD_SAFETENSORS_DTYPES.has(dtype)) {
    return `is stored as ${dtype}, a safetensors dtype CRANE does not read (a quantized checkpoint? use its BF16, F16 or F32 weights)`;
  }
  return `unknown dtype ${JSON.stringify(dtype)}`;
}

/** Sorted by offset, the tensors must cover [0, dataLength) exactly: no overlap, gap or trailing byte. */
function checkTiling(file: string, tensors: ReadonlyMap<string, TensorInfo>, dataLength: number): void {
  const sorted = [...tensors.values()].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let covered = 0;
  let previous: TensorInfo | undefined;
  for (const tensor of sorted) {
    if (tensor.begin < covered) {
      const other = previous as TensorInfo;
      throw new CheckpointError('overlap', file, `bytes [${tensor.begin}, ${tensor.end}) overlap tensor "${other.name}" [${other.begin}, ${other.end})`, tensor.name);
    }
    if (tensor.begin > covered) {
      throw new CheckpointError('offsets', file, `starts at byte ${tensor.begin} of the data area, leaving bytes [${covered}, ${tensor.begin}) unused (the reference loader refuses gaps)`, tensor.name);
    }
    covered = tensor.end;
    previous = tensor;
  }
  if (covered !== dataLength) {
    throw new CheckpointError(
      'offsets',
      file,
      `the tensors cover ${covered} bytes but the data area after the header is ${dataLength} (${dataLength - covered} byte${dataLength - covered === 1 ? '' : 's'} unaccounted for: header length prefix or file size wrong)`,
    );
  }
}
