/**
 * Text files of engine/calibration (JSONL chats, tokenizer files, chat templates) decoded as
 * strict UTF-8.
 *
 *   readUtf8File(path) → text      decodeUtf8(bytes, file) → text
 *
 * Node's 'utf8' decoding replaces invalid bytes with U+FFFD: calibration text would then differ
 * from the file without anyone noticing (different tokens, different gradients). Here an invalid
 * byte is a CalibrationError naming `file:line` and the byte's column. A leading byte-order mark
 * is dropped, as editors on Windows write one.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readRegularFile } from '../io/input-file.ts';
import { CalibrationError } from './calibration-error.ts';

const strict = new TextDecoder('utf-8', { fatal: true });
const NEWLINE = 0x0a;

export async function readUtf8File(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    // A regular file only: readFile on a FIFO named tokenizer.json or data.jsonl blocks forever.
    bytes = await readRegularFile(path);
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    throw new CalibrationError(error.code === 'not-found' ? 'not-found' : 'io', path, `cannot be read (${error.detail})`);
  }
  return decodeUtf8(bytes, path);
}

export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return strict.decode(bytes);
  } catch {
    throw invalidByteError(bytes, file);
  }
}

/** Only on failure: finds the first invalid line by decoding line by line (UTF-8 never encodes another character with byte 0x0A). */
function invalidByteError(bytes: Uint8Array, file: string): CalibrationError {
  let line = 1;
  let start = 0;
  while (start <= bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    const column = firstInvalidByte(bytes.subarray(start, end));
    if (column !== undefined) {
      return new CalibrationError('encoding', `${file}:${line}`, `is not valid UTF-8 (invalid byte 0x${(bytes[start + column] ?? 0).toString(16).padStart(2, '0')} at byte ${column + 1} of the line)`);
    }
    line++;
    start = end + 1;
  }
  return new CalibrationError('encoding', file, 'is not valid UTF-8');
}

/**
 * Index of the first byte of the first bad sequence: bisection finds the byte at which decoding
 * breaks; when that byte only breaks a multi-byte sequence opened just before it (Latin-1 "é"
 * read as a lead byte), the sequence's lead byte is the one to point at.
 */
function firstInvalidByte(line: Uint8Array): number | undefined {
  if (isValid(line)) return undefined;
  // Invariant: line[0, low) decodes up to a possibly incomplete sequence; line[0, high) does not.
  let low = 0;
  let high = line.length;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (isValidPrefix(line.subarray(0, mid))) low = mid;
    else high = mid;
  }
  let lead = low - 1;
  while (lead >= 0 && low - lead < 4 && isContinuation(line[lead] ?? 0)) lead--;
  return lead >= 0 && (line[lead] ?? 0) >= 0xc0 && sequenceLength(line[lead] ?? 0) > low - lead ? lead : low;
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;
const sequenceLength = (lead: number): number => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2);

function isValid(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A prefix is fine if it is valid up to a multi-byte sequence that the next bytes may complete. */
function isValidPrefix(bytes: Uint8Array): boolean {
  const streaming = new TextDecoder('utf-8', { fatal: true });
  try {
    streaming.decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
