/**
 * The desktop bridge contract: what the Electron preload exposes to the page as `window.crane`,
 * and how the engine port reaches the page. Defined once here; the preload is type-checked
 * against it, main validates IPC arguments with it, and the renderer uses it through
 * engine/protocol.ts. No imports at all: the sandboxed preload bundles this file, and anything
 * it imported (zod, the client) would have to load there too.
 *
 * Port hand-off: `requestEnginePort()` resolves with a nonce; the port follows as a window
 * message `{type: ENGINE_PORT_MESSAGE, nonce}` with the port transferred (contextBridge cannot
 * carry ports). The page takes only a message from its own window with the nonce it was given.
 */

/** `type` of the window message that carries the engine port into the page (with its nonce). */
export const ENGINE_PORT_MESSAGE = 'crane:engine-port';

export interface EnginePortMessage {
  readonly type: typeof ENGINE_PORT_MESSAGE;
  /** The nonce `requestEnginePort` resolved with: the page takes only the port it asked for. */
  readonly nonce: string;
}

const DIRECTORY_PURPOSES = ['instruct', 'thinking', 'base', 'project', 'export', 'calibration'] as const;
export type DirectoryPurpose = (typeof DIRECTORY_PURPOSES)[number];

/** Menu items the UI carries out itself (it picks folders with pickDirectory). */
export type MenuCommand = 'open-pair' | 'open-project' | 'export' | 'undo' | 'redo';

/** Something to open that main already knows the paths of (a recent project, the launch pair). */
export type OpenRequest =
  | { readonly kind: 'pair'; readonly instruct: string; readonly thinking: string }
  | { readonly kind: 'project'; readonly projectDir: string };

export interface EngineExit {
  /** The process's exit code; null when it was replaced on purpose (Restart Engine). */
  readonly code: number | null;
  readonly reason: string;
}

export interface CraneBridge {
  readonly bridgeVersion: 1;
  readonly platform: string;
  /** Main makes a new channel to the engine; its port follows as an EnginePortMessage. Rejects if the engine is down. */
  requestEnginePort(): Promise<{ nonce: string }>;
  /** The engine process the page's port leads to is gone (crashed, or replaced by a restart). */
  onEngineExit(listener: (exit: EngineExit) => void): () => void;
  /** A new engine process is starting (after a restart): a port requested now reaches it. */
  onEngineStart(listener: () => void): () => void;
  /** Starts a fresh engine process; the page's current port reports an exit, then request a new one. */
  restartEngine(): Promise<void>;
  /** The native folder picker; null when dismissed. */
  pickDirectory(purpose: DirectoryPurpose): Promise<string | null>;
  onMenuCommand(listener: (command: MenuCommand) => void): () => void;
  /** Recent projects and the pair given at launch; subscribing releases requests made before. */
  onOpenRequest(listener: (request: OpenRequest) => void): () => void;
}

/** IPC arguments are untrusted input even from a trusted sender: check them. */
export function isDirectoryPurpose(value: unknown): value is DirectoryPurpose {
  return typeof value === 'string' && (DIRECTORY_PURPOSES as readonly string[]).includes(value);
}

/** The shape of a port nonce (main makes UUIDs): what the preload forwards, nothing else. */
export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && /^[\w-]{16,64}$/.test(value);
}
