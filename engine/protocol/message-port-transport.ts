/**
 * Desktop transport: the protocol over a MessagePort. In the Electron app, main hands the window
 * one end of a channel whose other end is in the engine's utility process, so engine traffic
 * never passes through main. Strings carry plain JSON; CRF1 frames travel as Uint8Arrays whose
 * buffers are transferred, not copied.
 *
 * No Node or Electron imports: this file is bundled into the renderer. How the page obtains its
 * port from the preload is desktop-connection.ts.
 */
import { EngineClient } from './client.ts';
import type { EncodedMessage, WireData } from './frame.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './transport-constants.ts';

/** The part of a MessagePort used here: the DOM's, and Node's worker_threads one in tests. */
export interface MessagePortLike {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  start(): void;
  close(): void;
}

/** What a port delivered, as the protocol's wire data; undefined for anything else. */
export function toWireData(data: unknown): WireData | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  // Electron may hand a Uint8Array over as a Buffer or another view: read the same bytes.
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

/** Posts one encoded message; a frame's buffer is transferred (it is never used again here). */
export function postEncoded(port: Pick<MessagePortLike, 'postMessage'>, data: EncodedMessage): void {
  if (typeof data === 'string') port.postMessage(data, []);
  else port.postMessage(data, [data.buffer]);
}

/**
 * An EngineClient over `port`. A port has no reliable "other end died" signal, so whoever learns
 * of the engine's death (main, through the bridge) calls `client.close()`; that also closes the port.
 */
export function connectMessagePort(port: MessagePortLike, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): EngineClient {
  const client = new EngineClient((data) => postEncoded(port, data), maxMessageBytes);
  port.addEventListener('message', ({ data }) => {
    const wire = toWireData(data);
    if (wire !== undefined) client.receive(wire);
    // Anything else is not from our engine; decoding '' reports it as an `error` event.
    else client.receive('');
  });
  client.onClose(() => port.close());
  port.start();
  return client;
}
