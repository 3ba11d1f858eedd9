/**
 * Byte-exact clients for hostile-input tests: whatever a test writes reaches the server as it is,
 * with no HTTP or WebSocket library in between to refuse or repair it.
 *
 *   exchange(origin, bytes) → everything the server sent until it closed the connection
 *   upgradeRequest(origin, query, headers) → a WebSocket handshake as a browser would send it
 *   clientFrame({ opcode, payload, ... }) → one frame, masked unless told otherwise
 *   closeCode(reply) → the status code of the server's close frame after a 101 answer
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

/** Bounds a test whose server never closes; the test then fails on what it did not receive. */
const GIVE_UP_MS = 10_000;

export function exchange(origin: string, bytes: Buffer | string): Promise<Buffer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(() => socket.destroy(), GIVE_UP_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the reply counts as the end too; what was read is the answer.
    socket.on('error', () => undefined);
    socket.on('close', done);
  });
}

/** The status code of an HTTP reply (0 when there was none). */
export function statusOf(reply: Buffer): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(reply.toString('latin1'))?.[1] ?? 0);
}

export function upgradeRequest(path: string, headers: Record<string, string>): string {
  const lines = [
    `GET ${path} HTTP/1.1`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export interface FrameSpec {
  readonly opcode: number;
  readonly payload: Buffer;
  readonly masked?: boolean;
  readonly rsv1?: boolean;
  /** Claims this payload length in the 64-bit field instead of the real one. */
  readonly claimedLength?: bigint;
}

export function clientFrame({ opcode, payload, masked = true, rsv1 = false, claimedLength }: FrameSpec): Buffer {
  const first = Buffer.of(0x80 | (rsv1 ? 0x40 : 0) | opcode);
  const maskBit = masked ? 0x80 : 0;
  let length: Buffer;
  if (claimedLength !== undefined) {
    length = Buffer.alloc(9);
    length[0] = maskBit | 127;
    length.writeBigUInt64BE(claimedLength, 1);
  } else {
    if (payload.length > 125) throw new Error('test frames carry at most 125 bytes');
    length = Buffer.of(maskBit | payload.length);
  }
  if (!masked) return Buffer.concat([first, length, payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
  return Buffer.concat([first, length, mask, body]);
}

/** The close code the server sent after accepting the handshake, or undefined without one. */
export function closeCode(reply: Buffer): number | undefined {
  const bodyStart = reply.indexOf('\r\n\r\n');
  if (statusOf(reply) !== 101 || bodyStart < 0) return undefined;
  const frame = reply.subarray(bodyStart + 4);
  if (frame[0] !== 0x88 || (frame[1] ?? 0) < 2) return undefined;
  return frame.readUInt16BE(2);
}
