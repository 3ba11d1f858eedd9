/**
 * Browser mode: the engine WebSocket of the `crane serve` that served this page. The session
 * token arrives once in the page URL (`?token=`); the server also sets an HttpOnly cookie, so the
 * upgrade is authenticated either way. The token is dropped from the address bar once connected
 * so it does not linger in history or screenshots; reconnects (after `crane serve` restarted on
 * the same port with the same token) ride on the cookie.
 */
import { connectWebSocket, engineUrl, ProtocolError } from '../protocol.ts';
import type { EngineConnector } from './engine-api.ts';

export interface PageLocation {
  readonly protocol: string;
  readonly host: string;
  readonly search: string;
}

/** The WebSocket URL, carrying the page's token when it has one (the cookie covers reloads). */
export function websocketUrl(location: PageLocation): string {
  const token = new URLSearchParams(location.search).get('token');
  const base = engineUrl(location);
  return token === null ? base : `${base}?token=${encodeURIComponent(token)}`;
}

export function websocketConnector(location: PageLocation = window.location): EngineConnector {
  return {
    kind: 'websocket',
    label: `browser mode · ${location.host}`,
    async connect() {
      let client;
      try {
        client = await connectWebSocket(new WebSocket(websocketUrl(location)));
      } catch (error) {
        throw await whyNotConnected(location, error);
      }
      forgetTokenInAddressBar();
      return client;
    },
  };
}

/**
 * A browser hides why a WebSocket upgrade failed. A plain request to the same server tells a
 * stopped server from one that no longer accepts this page's session (restarted with a new token).
 */
async function whyNotConnected(location: PageLocation, error: unknown): Promise<unknown> {
  let status: number;
  try {
    status = (await fetch(`${location.protocol}//${location.host}/`, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' })).status;
  } catch {
    return new ProtocolError('disconnected', `nothing answers at ${location.host} (crane serve is not running)`);
  }
  if (status === 401 || status === 403) {
    return new ProtocolError('disconnected', `crane serve at ${location.host} no longer accepts this page's session (it was started with a new token): open the URL it printed`);
  }
  return error;
}

function forgetTokenInAddressBar(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url);
}
