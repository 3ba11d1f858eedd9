/**
 * Browser mode: the engine WebSocket of the `crane serve` that served this page. The session
 * token arrives once in the page URL (`?token=`); the server also sets an HttpOnly cookie, so the
 * upgrade is authenticated either way. The token is dropped from the address bar once connected
 * so it does not linger in history or screenshots.
 */
import { connectWebSocket, engineUrl } from '../protocol.ts';
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
      const client = await connectWebSocket(new WebSocket(websocketUrl(location)));
      forgetTokenInAddressBar();
      return client;
    },
  };
}

function forgetTokenInAddressBar(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url);
}
