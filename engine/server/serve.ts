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
import { createRequestGuard, type RequestGuard } from './request-guard.ts';
import { parseRequestTarget } from './request-target.ts';
import { createSessionToken, isSessionToken } from './session-token.ts';
import { serveStatic } from './static-files.ts';

export interface ServeOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The renderer build; a placeholder page is served while it does not exist. */
  readonly uiDir: string;
  readonly handlers: Handlers;
  readonly maxMessageBytes?: number;
  /**
   * The session token to accept; a fresh one when absent. A host that restarts the server (an
   * engine restart) passes the previous run's token and port, so open pages keep their cookie.
   */
  readonly token?: string;
  /** Where one line per unexpected failure goes (default: stderr). */
  readonly log?: (line: string) => void;
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
  const token = options.token ?? createSessionToken();
  if (!isSessionToken(token)) throw new Error('the session token must be at least 43 base64url characters (256 bits)');
  const log = options.log ?? ((line: string) => console.error(line));
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  // After listening, an error (e.g. too many open files on accept) costs a connection, not the server.
  server.on('error', (error) => log(`crane serve: ${error.message}`));
  const { port } = server.address() as AddressInfo;
  const guard = createRequestGuard({ token, port, hosts: allowedHosts(options.host, port) });
  const socket = createEngineSocket({ handlers: options.handlers, maxMessageBytes, guard, log });

  const fail = (response: ServerResponse, error: unknown): void => {
    log(`crane serve: request failed: ${error instanceof Error ? error.message : String(error)}`);
    if (response.headersSent || response.destroyed) return void response.destroy();
    response.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal error');
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    answer(request, response, guard, options.uiDir).catch((error: unknown) => fail(response, error));
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

/** Async, so that anything thrown on the way becomes the one rejection `fail` answers. */
async function answer(request: IncomingMessage, response: ServerResponse, guard: RequestGuard, uiDir: string): Promise<void> {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
  const target = parseRequestTarget(request.url);
  if (target === undefined) return void response.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad request target');
  const verdict = guard(request, target, { websocket: false });
  if (!verdict.ok) return void response.writeHead(verdict.status, { 'Content-Type': 'text/plain' }).end(verdict.reason);
  if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { Allow: 'GET, HEAD' }).end();
  if (verdict.setCookie !== undefined) response.setHeader('Set-Cookie', verdict.setCookie);
  await serveStatic(uiDir, target.pathname, response, request.method === 'HEAD');
}
