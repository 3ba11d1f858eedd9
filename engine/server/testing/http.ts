/** Raw HTTP and WebSocket clients for server tests: exact paths and headers, no redirects or cookie jars. */
import { request } from 'node:http';
import WebSocket from 'ws';
import { connectWebSocket, engineUrl, type WebSocketLike } from '../../protocol/websocket-client.ts';

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** GET `path` verbatim (no URL normalisation, so `..` reaches the server as sent). */
export function rawGet(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

export function wsUrl(origin: string, query = ''): string {
  return `${engineUrl(new URL(origin))}${query}`;
}

/** An EngineClient over a `ws` socket, with the headers a browser would (or would not) send. */
export function connectClient(url: string, headers: { origin?: string; cookie?: string }) {
  const socket = new WebSocket(url, { ...(headers.origin === undefined ? {} : { origin: headers.origin }), headers: headers.cookie === undefined ? {} : { cookie: headers.cookie } });
  // ws reports a refused upgrade as an 'error' before 'close'; the close is what the client acts on.
  socket.on('error', () => undefined);
  return { socket, client: connectWebSocket(socket as unknown as WebSocketLike) };
}

/** Resolves with the HTTP status of a refused upgrade (ws emits 'unexpected-response'). */
export function upgradeStatus(url: string, headers: { origin?: string; cookie?: string }): Promise<number> {
  const socket = new WebSocket(url, { ...(headers.origin === undefined ? {} : { origin: headers.origin }), headers: headers.cookie === undefined ? {} : { cookie: headers.cookie } });
  return new Promise((resolve) => {
    socket.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('error', () => resolve(0));
    socket.on('open', () => {
      resolve(101);
      socket.close();
    });
  });
}
