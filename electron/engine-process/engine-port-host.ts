/**
 * The engine end of a MessagePort connection: one EngineHost per port. Written against a small
 * endpoint interface because the two port types that reach it differ: Electron's MessagePortMain
 * (in the utility process; `on('message', e => e.data)`) and Node's worker_threads MessagePort
 * (in tests; `on('message', data => …)`). No Electron import, so it is unit-tested in Node.
 */
import type { EncodedMessage } from '../../engine/protocol/frame.ts';
import type { Handlers } from '../../engine/protocol/handlers.ts';
import { EngineHost, type EngineHostOptions } from '../../engine/protocol/host.ts';
import { toWireData } from '../../engine/protocol/message-port-transport.ts';

export interface PortEndpoint {
  post(data: EncodedMessage): void;
  onMessage(listener: (data: unknown) => void): void;
  onClose(listener: () => void): void;
  start(): void;
}

/** Marks anything that is not wire data so the host answers it with a `bad-request` error event. */
const NOT_WIRE_DATA = '\u0000not wire data';

export function serveEnginePort(endpoint: PortEndpoint, handlers: Handlers, options: EngineHostOptions = {}): EngineHost {
  const host = new EngineHost(handlers, (data) => endpoint.post(data), options);
  endpoint.onMessage((data) => host.receive(toWireData(data) ?? NOT_WIRE_DATA));
  // The window went away (closed, reloaded): cancel its requests so long jobs stop.
  endpoint.onClose(() => host.close());
  endpoint.start();
  return host;
}

/** The subset of Electron's MessagePortMain this adapter needs (typed here to stay Electron-free). */
export interface MessagePortMainLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
}

/**
 * MessagePortMain cannot transfer ArrayBuffers (only ports), so frames from the engine are
 * copied once into the renderer; frames towards the engine are transferred by the renderer.
 */
export function messagePortMainEndpoint(port: MessagePortMainLike): PortEndpoint {
  return {
    post: (data) => port.postMessage(data),
    onMessage: (listener) => port.on('message', (event) => listener(event.data)),
    onClose: (listener) => port.on('close', listener),
    start: () => port.start(),
  };
}
