/**
 * The contract between the renderer and the Electron preload (`window.crane`). The preload owns
 * it; this file is the renderer's view of it. Design:
 *
 * - `requestEnginePort()` asks main for a fresh MessagePort into the engine utilityProcess.
 *   contextBridge cannot hand a MessagePort to the page, so the preload delivers it with
 *   `window.postMessage({ type: ENGINE_PORT_MESSAGE, nonce }, '*', [port])`; the nonce is the one
 *   `requestEnginePort` resolved with, so the page takes only the port it asked for.
 *   Frames travel as on the WebSocket: strings for JSON, ArrayBuffers (transferred) for CRF1.
 * - `onEngineExit` reports an engine crash; `restartEngine()` starts a new one (then request a
 *   new port). The project and its cache are on disk, so nothing is lost.
 * - `pickDirectory` opens the native folder picker (null when dismissed).
 * - `onMenuCommand` delivers menu items (Open Pair…, Open Project…, Export…, Undo, Redo).
 * - `onOpenRequest` delivers what main already knows to open (a recent project, the launch pair).
 * The preload is type-checked against engine/protocol/message-port-transport.ts; this is the
 * same contract (version 1), repeated because eslint admits only engine/protocol.ts here.
 */
export const ENGINE_PORT_MESSAGE = 'crane:engine-port';

export type MenuCommand = 'open-pair' | 'open-project' | 'export' | 'undo' | 'redo';

export type OpenRequest =
  | { readonly kind: 'pair'; readonly instruct: string; readonly thinking: string }
  | { readonly kind: 'project'; readonly projectDir: string };

export interface CraneBridge {
  readonly bridgeVersion: 1;
  readonly platform: string;
  requestEnginePort(): Promise<{ nonce: string }>;
  onEngineExit(listener: (info: { code: number | null; reason: string }) => void): () => void;
  restartEngine(): Promise<void>;
  pickDirectory(purpose: 'instruct' | 'thinking' | 'project' | 'export' | 'calibration'): Promise<string | null>;
  onMenuCommand(listener: (command: MenuCommand) => void): () => void;
  onOpenRequest(listener: (request: OpenRequest) => void): () => void;
}

declare global {
  interface Window {
    crane?: CraneBridge;
  }
}

export function craneBridge(): CraneBridge | undefined {
  const bridge = typeof window === 'undefined' ? undefined : window.crane;
  return bridge?.bridgeVersion === 1 ? bridge : undefined;
}
