/**
 * Browser mode: one HTTP server that serves the renderer build and the engine protocol over a
 * WebSocket, both behind the session token. Loopback only unless the caller binds elsewhere.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Handlers } from '../protocol/handlers.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../protocol/transport-constants.ts';
import { allowedHosts, displayHost, hostWithPort } from './bind-address.ts';
import { createEngineSocket } from './engine-socket.ts';
import { createRequestGuard } from './request-guard.ts';
import { createSessionToken } from './session-token.ts';
import { serveStatic } from './static-files.ts';

export interface ServeOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The renderer build; a placeholder page is served while it does not exist. */
  readonly uiDir: string;
  readonly handlers: Handlers;
  readonly maxMessageBytes?: number;
}

export interface RunningServer {
  readonly origin: string;
  /** The URL to open: origin plus the session token. */
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

/** 'self' covers same-origin ws: too; inline styles are allowed because charting libraries set them. */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = createSessionToken();
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const guard = createRequestGuard({ token, port, hosts: allowedHosts(options.host, port) });
  const socket = createEngineSocket({ handlers: options.handlers, maxMessageBytes, guard });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    const verdict = guard(request, { websocket: false });
    if (!verdict.ok) return void response.writeHead(verdict.status, { 'Content-Type': 'text/plain' }).end(verdict.reason);
    if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    if (verdict.setCookie !== undefined) response.setHeader('Set-Cookie', verdict.setCookie);
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    serveStatic(options.uiDir, pathname, response, request.method === 'HEAD').catch(() => response.destroy());
  });
  server.on('upgrade', socket.upgrade);

  const origin = `http://${hostWithPort(displayHost(options.host), port)}`;
  return {
    origin,
    url: `${origin}/?token=${token}`,
    token,
    close: async () => {
      socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
