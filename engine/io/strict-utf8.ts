/**
 * Strict UTF-8 for every text the engine reads from a file (headers, config and tokenizer files,
 * calibration JSONL, chat templates): the text is the file's or an error, never U+FFFD in place of
 * bad bytes — a replaced byte would silently change tensor names or calibration tokens.
 *
 *   decodeStrictUtf8(bytes, bom, onInvalid) → string    onInvalid(at) builds the caller's error
 *   at = { offset, line, column, byte }                 where the first bad sequence starts
 *
 * Locating the bad byte runs only on the error path, so its cost does not matter.
 */

export interface InvalidUtf8 {
  /** 0-based offset of the first byte of the first invalid sequence. */
  readonly offset: number;
  /** 1-based line (UTF-8 never encodes another character with byte 0x0A) and byte in that line. */
  readonly line: number;
  readonly column: number;
  readonly byte: number;
}

/**
 * 'keep': a leading byte-order mark stays in the text, so JSON parsing refuses it as the reference
 * loaders (Rust safetensors, Python json) do. 'drop': removed, as editors on Windows write one.
 */
export type ByteOrderMark = 'keep' | 'drop';

export function decodeStrictUtf8(bytes: Uint8Array, bom: ByteOrderMark, onInvalid: (at: InvalidUtf8) => Error): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: bom === 'keep' }).decode(bytes);
  } catch {
    throw onInvalid(locateInvalidUtf8(bytes));
  }
}

export function locateInvalidUtf8(bytes: Uint8Array): InvalidUtf8 {
  const offset = firstInvalidSequence(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1;
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++;
  return { offset, line, column: offset - lineStart + 1, byte: bytes[offset] ?? 0 };
}

/**
 * Bisection finds the first prefix a streaming decoder refuses; when the byte there only breaks a
 * multi-byte sequence opened just before it (Latin-1 "é" read as a lead byte, a cut "€"), the
 * sequence's lead byte is the one to point at.
 */
function firstInvalidSequence(bytes: Uint8Array): number {
  // Invariant: bytes[0, low) streams (possibly ending in an incomplete sequence); bytes[0, high) does not decode.
  let low = 0;
  let high = bytes.length;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (streams(bytes.subarray(0, mid))) low = mid;
    else high = mid;
  }
  let lead = low - 1;
  while (lead >= 0 && low - lead < 4 && isContinuation(bytes[lead] ?? 0)) lead--;
  const leadByte = bytes[lead] ?? 0;
  return lead >= 0 && leadByte >= 0xc0 && sequenceLength(leadByte) > low - lead ? lead : low;
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;
const sequenceLength = (lead: number): number => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2);

/** Valid up to, at most, a multi-byte sequence that later bytes could complete. */
function streams(prefix: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(prefix, { stream: true });
    return true;
  } catch {
    return false;
  }
}
