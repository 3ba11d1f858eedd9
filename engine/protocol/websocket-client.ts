/**
 * Browser-mode transport: an EngineClient over a WebSocket. Text messages carry plain JSON,
 * binary messages carry CRF1 frames. The session cookie set by `crane serve` authenticates the
 * upgrade, so the UI never handles the token itself.
 */
import { EngineClient } from './client.ts';
import { ProtocolError } from './errors.ts';
import { ENGINE_PATH } from './transport-constants.ts';

/** The part of the WebSocket API used here: the browser's, and the `ws` package's in Node tests. */
export interface WebSocketLike {
  binaryType: string;
  send(data: string | Uint8Array<ArrayBuffer>): void;
  addEventListener(type: 'open' | 'message' | 'close', listener: (event: { data?: unknown; code?: number }) => void): void;
}

/** The URL of the engine endpoint of the server that served `location`. */
export function engineUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${ENGINE_PATH}`;
}

/** Resolves once the socket is open; rejects with 'disconnected' if it closes first (e.g. refused). */
export function connectWebSocket(socket: WebSocketLike): Promise<EngineClient> {
  socket.binaryType = 'arraybuffer';
  const client = new EngineClient((data) => socket.send(data));
  socket.addEventListener('message', ({ data }) => {
    client.receive(typeof data === 'string' ? data : new Uint8Array(data as ArrayBuffer));
  });
  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () => resolve(client));
    socket.addEventListener('close', ({ code }) => {
      const reason = new ProtocolError('disconnected', `the engine connection closed (code ${code ?? 'unknown'})`);
      client.close(reason);
      reject(reason);
    });
  });
}
