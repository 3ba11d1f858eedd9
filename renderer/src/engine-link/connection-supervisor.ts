/**
 * Keeps the page on an engine for as long as it is open, in either host:
 *
 *   superviseConnection(connector, events) → { retryNow, stop }
 *
 * It connects; when the connection closes (the engine crashed or was restarted, `crane serve`
 * stopped) it connects again after 0.25, 0.5, 1, 2, 4 and then every 8 seconds — at once when
 * the user asks (retryNow) or the host says a new engine is starting (Electron's
 * onEngineRestart). Each new connection goes to `events.open` (bind events, ping, re-open the
 * project); an `open` that fails counts as a failed attempt. It never gives up: the engine the
 * page belongs to may come back at any time (a restarted `crane serve` keeps port and token).
 */
import type { EngineApi, EngineConnector } from './engine-api.ts';

const RECONNECT_DELAYS_MS: readonly number[] = [250, 500, 1000, 2000, 4000, 8000];

export interface SupervisorEvents {
  /** An attempt starts; `reconnecting` is false until the page has had a connection. */
  connecting(reconnecting: boolean): void;
  /** A new connection: make it the page's engine. `reconnected` is false for the page's first one. */
  open(api: EngineApi, reconnected: boolean): Promise<void>;
  /** The connection closed or an attempt failed; the next attempt starts in `retryInMs`. */
  lost(reason: string, retryInMs: number): void;
}

export interface ConnectionSupervisor {
  /** Skips the wait before the next attempt (no effect while connected or connecting). */
  retryNow(): void;
  stop(): void;
}

export function superviseConnection(connector: EngineConnector, events: SupervisorEvents, delays = RECONNECT_DELAYS_MS): ConnectionSupervisor {
  let stopped = false;
  let hadConnection = false;
  /** Failed attempts since the last good connection: picks the delay. */
  let failures = 0;
  let waiting: ReturnType<typeof setTimeout> | null = null;

  const retryLater = (reason: string): void => {
    if (stopped) return;
    const delay = delays[Math.min(failures, delays.length - 1)] ?? 0;
    failures += 1;
    events.lost(reason, delay);
    waiting = setTimeout(() => void attempt(), delay);
  };

  const attempt = async (): Promise<void> => {
    waiting = null;
    if (stopped) return;
    events.connecting(hadConnection);
    let ended = false;
    // One retry per connection, whether its open() fails or it closes later.
    const end = (reason: string) => {
      if (ended) return;
      ended = true;
      retryLater(reason);
    };
    try {
      const api = await connector.connect();
      api.onClose((reason) => end(reason.message));
      await events.open(api, hadConnection);
    } catch (error) {
      return end(error instanceof Error ? error.message : String(error));
    }
    if (ended) return;
    hadConnection = true;
    failures = 0;
  };

  const retryNow = (): void => {
    if (waiting === null) return;
    clearTimeout(waiting);
    void attempt();
  };
  const stopRestartListener = connector.onEngineRestart?.(retryNow);
  void attempt();
  return {
    retryNow,
    stop: () => {
      stopped = true;
      if (waiting !== null) clearTimeout(waiting);
      stopRestartListener?.();
    },
  };
}
