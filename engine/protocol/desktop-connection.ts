/**
 * The page's side of the desktop port hand-off (desktop-bridge.ts): ask main for a port, take
 * the one window message from our own window that carries it with our nonce, and run an
 * EngineClient over it (connectMessagePort) that closes when the bridge reports its engine gone.
 * Each call makes a new connection, so after an exit (a crash, or Restart Engine) calling it
 * again reconnects to the engine running now.
 *
 * Written against small structural types, not the DOM's, so it runs in Node tests over
 * worker_threads ports; no Node imports (bundled into the renderer).
 */
import type { EngineClient } from './client.ts';
import { ENGINE_PORT_MESSAGE, type CraneBridge } from './desktop-bridge.ts';
import { ProtocolError } from './errors.ts';
import { connectMessagePort, type MessagePortLike } from './message-port-transport.ts';

export interface PortMessageEvent {
  readonly source: unknown;
  readonly data: unknown;
  readonly ports: readonly MessagePortLike[];
}

/** The page's window, as far as the hand-off uses it. */
export interface PageWindow {
  addEventListener(type: 'message', listener: (event: PortMessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: PortMessageEvent) => void): void;
}

export type PortBridge = Pick<CraneBridge, 'requestEnginePort' | 'onEngineExit'>;

/** Asks main for a new engine port and resolves with it; rejects 'disconnected' if none comes. */
export function receiveEnginePort(bridge: PortBridge, page: PageWindow, signal?: AbortSignal): Promise<MessagePortLike> {
  return new Promise((resolve, reject) => {
    let nonce: string | undefined;
    // The port can overtake requestEnginePort's answer: hold candidates until the nonce is known.
    const early: PortMessageEvent[] = [];
    const finish = (outcome: () => void) => {
      page.removeEventListener('message', accept);
      signal?.removeEventListener('abort', abort);
      outcome();
    };
    const accept = (event: PortMessageEvent): void => {
      const data = event.data as { type?: unknown; nonce?: unknown } | null;
      const port = event.ports[0];
      if (event.source !== page || data?.type !== ENGINE_PORT_MESSAGE || port === undefined) return;
      if (nonce === undefined) early.push(event);
      else if (data.nonce === nonce) finish(() => resolve(port));
    };
    const abort = () => finish(() => reject(signal?.reason));
    page.addEventListener('message', accept);
    signal?.addEventListener('abort', abort);
    bridge.requestEnginePort().then(
      (answer) => {
        nonce = answer.nonce;
        for (const event of early.splice(0)) accept(event);
      },
      (error: unknown) => finish(() => reject(new ProtocolError('disconnected', `no engine port: ${errorText(error)}`))),
    );
  });
}

/**
 * A client over a fresh engine port. It closes with 'disconnected' (naming the reason main
 * gave) when the bridge reports the engine's exit; an exit while the port is on its way
 * rejects the connection instead.
 */
export async function connectDesktopEngine(bridge: PortBridge, page: PageWindow): Promise<EngineClient> {
  const waiting = new AbortController();
  let client: EngineClient | undefined;
  const stopListening = bridge.onEngineExit(({ reason }) => {
    const error = new ProtocolError('disconnected', `the engine process ended: ${reason}`);
    if (client === undefined) waiting.abort(error);
    else client.close(error);
  });
  try {
    client = connectMessagePort(await receiveEnginePort(bridge, page, waiting.signal));
  } catch (error) {
    stopListening();
    throw error;
  }
  client.onClose(stopListening);
  return client;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
