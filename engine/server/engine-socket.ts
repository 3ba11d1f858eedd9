/**
 * The protocol over WebSocket at /engine: the upgrade passes the same guard as HTTP, then each
 * connection gets its own EngineHost (its own requests, cancels and events).
 *
 * Nothing a client sends may end the process: a target that does not parse is refused with 400,
 * a socket reset during the handshake is swallowed, and a frame that breaks the WebSocket
 * protocol (bad UTF-8, unmasked, reserved opcode or bits, oversized) closes that connection only,
 * with one log line.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData } from 'ws';
import type { Handlers } from '../protocol/handlers.ts';
import { EngineHost } from '../protocol/host.ts';
import { ENGINE_PATH } from '../protocol/transport-constants.ts';
import type { GuardResult, RequestGuard } from './request-guard.ts';
import { parseRequestTarget } from './request-target.ts';

export interface EngineSocketOptions {
  readonly handlers: Handlers;
  readonly maxMessageBytes: number;
  readonly guard: RequestGuard;
  /** One line per connection that failed or broke the protocol. */
  readonly log: (line: string) => void;
}

export function createEngineSocket({ handlers, maxMessageBytes, guard, log }: EngineSocketOptions) {
  // ws drops the connection past maxPayload (close code 1009); the host answers 'too-large' below
  // it, so the cap sits well above the host's limit and only stops messages that would exhaust memory.
  const server = new WebSocketServer({ noServer: true, maxPayload: 4 * maxMessageBytes, perMessageDeflate: false });

  server.on('connection', (socket) => {
    const host = new EngineHost(handlers, (data) => socket.send(data), { maxMessageBytes });
    socket.on('message', (data: RawData, isBinary) => {
      const bytes = toBytes(data);
      host.receive(isBinary ? bytes : bytes.toString('utf8'));
    });
    // ws reports a protocol violation as 'error' and then closes; unheard, the 'error' would throw.
    socket.on('error', (error) => log(`crane serve: closed an engine connection: ${error.message}`));
    socket.on('close', () => host.close());
  });

  const upgrade = (request: IncomingMessage, stream: Duplex, head: Buffer): void => {
    // Node hands an upgrading socket over without its own 'error' listener: a client reset here
    // would otherwise be an uncaught error. ws adds its own once the handshake is accepted.
    stream.on('error', () => stream.destroy());
    try {
      const verdict = upgradeVerdict(request, guard);
      if (!verdict.ok) return refuseUpgrade(stream, verdict.status);
      server.handleUpgrade(request, stream, head, (socket) => server.emit('connection', socket, request));
    } catch (error) {
      log(`crane serve: WebSocket upgrade failed: ${error instanceof Error ? error.message : String(error)}`);
      refuseUpgrade(stream, 500);
    }
  };

  const close = (): void => {
    for (const socket of server.clients) socket.terminate();
    server.close();
  };

  return { upgrade, close };
}

function upgradeVerdict(request: IncomingMessage, guard: RequestGuard): GuardResult | { ok: false; status: 400 | 404 } {
  const target = parseRequestTarget(request.url);
  if (target === undefined) return { ok: false, status: 400 };
  if (target.pathname !== ENGINE_PATH) return { ok: false, status: 404 };
  return guard(request, target, { websocket: true });
}

/** A fixed status line: the guard's reason quotes client headers, which stay out of the response. */
function refuseUpgrade(stream: Duplex, status: number): void {
  if (stream.destroyed) return;
  stream.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Refused'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function toBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
