/**
 * The protocol over WebSocket at /engine: the upgrade passes the same guard as HTTP, then each
 * connection gets its own EngineHost (its own requests, cancels and events).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData } from 'ws';
import type { Handlers } from '../protocol/handlers.ts';
import { EngineHost } from '../protocol/host.ts';
import { ENGINE_PATH } from '../protocol/transport-constants.ts';
import type { GuardResult } from './request-guard.ts';

export interface EngineSocketOptions {
  readonly handlers: Handlers;
  readonly maxMessageBytes: number;
  readonly guard: (request: IncomingMessage, context: { websocket: boolean }) => GuardResult;
}

export function createEngineSocket({ handlers, maxMessageBytes, guard }: EngineSocketOptions) {
  // ws drops the connection past maxPayload; the host answers 'too-large' below it, so the cap
  // sits well above the host's limit and only stops messages that would exhaust memory.
  const server = new WebSocketServer({ noServer: true, maxPayload: 4 * maxMessageBytes, perMessageDeflate: false });

  server.on('connection', (socket) => {
    const host = new EngineHost(handlers, (data) => socket.send(data), { maxMessageBytes });
    socket.on('message', (data: RawData, isBinary) => {
      const bytes = toBytes(data);
      host.receive(isBinary ? bytes : bytes.toString('utf8'));
    });
    socket.on('close', () => host.close());
  });

  const upgrade = (request: IncomingMessage, stream: Duplex, head: Buffer): void => {
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    const verdict = pathname === ENGINE_PATH ? guard(request, { websocket: true }) : ({ ok: false, status: 404, reason: 'not found' } as const);
    if (!verdict.ok) {
      stream.end(`HTTP/1.1 ${verdict.status} ${verdict.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    server.handleUpgrade(request, stream, head, (socket) => server.emit('connection', socket, request));
  };

  const close = (): void => {
    for (const socket of server.clients) socket.terminate();
    server.close();
  };

  return { upgrade, close };
}

function toBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
