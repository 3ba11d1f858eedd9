/**
 * Wire encoding of one message. Without binary payloads a message is plain JSON text (readable
 * in devtools). With Float32Arrays it is one binary frame, so bulk numbers cost their own bytes
 * instead of ~10 bytes of JSON per float:
 *
 *   "CRF1" | u32 n | u32 head bytes | u32 count_0 … count_n-1 | head | pad to 8 | buffer 0 | pad to 8 | …
 *
 * The head is the message as JSON with each Float32Array replaced by {"$f32": index}. Buffers
 * start 8-aligned so a receiver can view them in place. All integers and floats are
 * little-endian, the byte order of every platform the studio runs on. The same bytes travel over
 * a WebSocket (binary message) or a MessagePort (transfer `.buffer`).
 */
import { ProtocolError } from './errors.ts';

/** What arrives from a transport (a Node Buffer is a Uint8Array over a pooled ArrayBufferLike). */
export type WireData = string | Uint8Array;

/** What encodeMessage produces: a frame owns a plain ArrayBuffer, so it can be transferred. */
export type EncodedMessage = string | Uint8Array<ArrayBuffer>;

const MAGIC = [0x43, 0x52, 0x46, 0x31]; // "CRF1"
const ALIGN = 8;
const BUFFER_KEY = '$f32';

const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

export function wireSize(data: WireData): number {
  return typeof data === 'string' ? data.length : data.byteLength;
}

export function encodeMessage(message: unknown): EncodedMessage {
  const buffers: Float32Array[] = [];
  const json = JSON.stringify(message, (_key, value: unknown) => {
    if (value instanceof Float32Array) return { [BUFFER_KEY]: buffers.push(value) - 1 };
    // JSON.stringify would silently turn other typed arrays into {"0": …} objects.
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) throw new TypeError('only Float32Array binary payloads are supported');
    return value;
  });
  if (buffers.length === 0) return json;
  const head = new TextEncoder().encode(json);
  const headStart = 12 + 4 * buffers.length;
  let size = align(headStart + head.byteLength);
  const offsets = buffers.map((b) => {
    const offset = size;
    size = align(offset + b.byteLength);
    return offset;
  });
  const frame = new Uint8Array(size);
  const view = new DataView(frame.buffer);
  frame.set(MAGIC, 0);
  view.setUint32(4, buffers.length, true);
  view.setUint32(8, head.byteLength, true);
  buffers.forEach((b, i) => {
    view.setUint32(12 + 4 * i, b.length, true);
    frame.set(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), offsets[i]);
  });
  frame.set(head, headStart);
  return frame;
}

/** Throws ProtocolError('bad-request') for anything that is not a well-formed message. */
export function decodeMessage(data: WireData): unknown {
  if (typeof data === 'string') return parseJson(data, []);
  const { head, buffers } = readFrame(data);
  return parseJson(head, buffers);
}

function readFrame(data: Uint8Array): { head: string; buffers: Float32Array[] } {
  if (data.byteLength < 12 || MAGIC.some((b, i) => data[i] !== b)) throw bad('binary message is not a CRF1 frame');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const n = view.getUint32(4, true);
  const headStart = 12 + 4 * n;
  const headEnd = headStart + view.getUint32(8, true);
  if (headEnd > data.byteLength) throw bad('frame head runs past the end of the frame');
  let head: string;
  try {
    head = new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(headStart, headEnd));
  } catch {
    throw bad('frame head is not UTF-8');
  }
  let offset = align(headEnd);
  const buffers: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const count = view.getUint32(12 + 4 * i, true);
    const end = offset + count * 4;
    if (end > data.byteLength) throw bad('frame buffers run past the end of the frame');
    buffers.push(viewFloat32(data, offset, count));
    offset = align(end);
  }
  if (offset !== align(data.byteLength)) throw bad('frame has bytes after its last buffer');
  return { head, buffers };
}

/** In place when aligned (browser ArrayBuffers); a copy when not (pooled Node buffers). */
function viewFloat32(data: Uint8Array, offset: number, count: number): Float32Array {
  const start = data.byteOffset + offset;
  if (start % 4 === 0) return new Float32Array(data.buffer, start, count);
  return new Float32Array(new Uint8Array(data.subarray(offset, offset + count * 4)).buffer);
}

function parseJson(text: string, buffers: readonly Float32Array[]): unknown {
  try {
    return JSON.parse(text, (_key, value: unknown) => {
      if (!isPlaceholder(value)) return value;
      const buffer = buffers[value[BUFFER_KEY]];
      if (buffer === undefined) throw bad(`binary reference ${value[BUFFER_KEY]} has no buffer`);
      return buffer;
    });
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    // Valid JSON nested deeper than the reviver's recursion allows is not "malformed".
    if (error instanceof RangeError) throw bad('JSON nested too deeply');
    throw bad(`malformed JSON (${(error as Error).message})`);
  }
}

function isPlaceholder(value: unknown): value is { [BUFFER_KEY]: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === BUFFER_KEY && Number.isSafeInteger((value as Record<string, unknown>)[BUFFER_KEY]);
}

const bad = (message: string) => new ProtocolError('bad-request', message);

/** The first characters of a message's JSON (text, or a frame's head) without decoding the rest. */
export function messagePrefix(data: WireData, length = 32): string {
  if (typeof data === 'string') return data.slice(0, length);
  if (data.byteLength < 12 || MAGIC.some((b, i) => data[i] !== b)) return '';
  const headStart = 12 + 4 * new DataView(data.buffer, data.byteOffset, 12).getUint32(4, true);
  return new TextDecoder().decode(data.subarray(headStart, headStart + length));
}
