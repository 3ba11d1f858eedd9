/**
 * Desktop transport: the protocol over a MessagePort. In the Electron app, main hands the window
 * one end of a channel whose other end is in the engine's utility process, so engine traffic
 * never passes through main. Strings carry plain JSON; CRF1 frames travel as Uint8Arrays whose
 * buffers are transferred, not copied.
 *
 * Also the desktop bridge contract (what the preload exposes as `window.crane`): types only.
 * No Node or Electron imports: this file is bundled into the renderer.
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

// ---- The desktop bridge (window.crane), implemented by electron/preload.ts ----
// renderer/src/engine-link/crane-bridge.ts is the UI's view of the same contract (version 1);
// this definition is what the preload is type-checked against.

/** `type` of the window message that carries the engine port into the page (with its nonce). */
export const ENGINE_PORT_MESSAGE = 'crane:engine-port';

export interface EnginePortMessage {
  readonly type: typeof ENGINE_PORT_MESSAGE;
  /** The nonce `requestEnginePort` resolved with: the page takes only the port it asked for. */
  readonly nonce: string;
}

export type DirectoryPurpose = 'instruct' | 'thinking' | 'project' | 'export' | 'calibration';

/** Menu items the UI carries out itself (it picks folders with pickDirectory). */
export type MenuCommand = 'open-pair' | 'open-project' | 'export' | 'undo' | 'redo';

/** Something to open that main already knows the paths of (a recent project, the launch pair). */
export type OpenRequest =
  | { readonly kind: 'pair'; readonly instruct: string; readonly thinking: string }
  | { readonly kind: 'project'; readonly projectDir: string };

export interface EngineExit {
  readonly code: number | null;
  readonly reason: string;
}

export interface CraneBridge {
  readonly bridgeVersion: 1;
  readonly platform: string;
  /** Main makes a new channel to the engine; its port follows as an EnginePortMessage. Rejects if the engine is down. */
  requestEnginePort(): Promise<{ nonce: string }>;
  onEngineExit(listener: (exit: EngineExit) => void): () => void;
  /** Starts a fresh engine process; then request a new port. */
  restartEngine(): Promise<void>;
  /** The native folder picker; null when dismissed. */
  pickDirectory(purpose: DirectoryPurpose): Promise<string | null>;
  onMenuCommand(listener: (command: MenuCommand) => void): () => void;
  /** Recent projects and the pair given at launch; subscribing releases requests made before. */
  onOpenRequest(listener: (request: OpenRequest) => void): () => void;
}
