/**
 * The seam between the UI and an engine: what the store's actions need from a connection.
 * EngineClient (over a WebSocket or an Electron MessagePort) satisfies it, and so does the
 * in-page synthetic engine used for demos and tests.
 */
import type { CallOptions, EventName, EventPayload, Params, ProtocolError, RequestName, Result } from '../protocol.ts';

export interface EngineApi {
  call<K extends RequestName>(method: K, params: Params<K>, options?: CallOptions): Promise<Result<K>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  onClose(listener: (reason: ProtocolError) => void): () => void;
}

/** How the page reaches its engine; chosen once at start-up (see choose-connector.ts). */
export interface EngineConnector {
  readonly kind: 'websocket' | 'electron' | 'synthetic';
  /** Human-readable: shown in the header. */
  readonly label: string;
  /**
   * A new connection each call: after the previous EngineApi closed, calling it again reconnects
   * (WebSocket: a new socket; Electron: a new port to the engine process running now).
   */
  connect(): Promise<EngineApi>;
  /**
   * Electron only: a new engine process is starting (Restart Engine, from the menu or the
   * bridge), so a page whose connection closed can connect() now instead of waiting to retry.
   */
  onEngineRestart?(listener: () => void): () => void;
}
