/**
 * Which engine this page talks to: the Electron bridge when the preload exposed one, the
 * in-page synthetic engine when the URL asks for it (`?engine=synthetic[&layers=48&experts=128]`),
 * otherwise the WebSocket of the `crane serve` that served the page.
 */
import { craneBridge } from './crane-bridge.ts';
import type { EngineConnector } from './engine-api.ts';
import { electronConnector } from './electron-connector.ts';
import { syntheticConnector } from './synthetic/synthetic-connector.ts';
import { websocketConnector } from './websocket-connector.ts';

export function chooseConnector(search: string = window.location.search): EngineConnector {
  const query = new URLSearchParams(search);
  if (query.get('engine') === 'synthetic') {
    return syntheticConnector({
      layers: intParam(query.get('layers'), 28, 1, 256),
      experts: intParam(query.get('experts'), 0, 0, 512),
    });
  }
  const bridge = craneBridge();
  return bridge !== undefined ? electronConnector(bridge) : websocketConnector();
}

function intParam(raw: string | null, fallback: number, min: number, max: number): number {
  const value = raw === null ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}
