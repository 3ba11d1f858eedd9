/** IPC channel names, shared by main and the preload (the preload bundle inlines them). */
import type { DirectoryPurpose, MenuCommand } from '../engine/protocol/message-port-transport.ts';

export const IPC = {
  /** renderer → main (invoke): make a channel to the engine; answers {nonce}. */
  requestEnginePort: 'crane:request-engine-port',
  /** main → renderer: {nonce} with the port in event.ports. */
  enginePort: 'crane:engine-port',
  /** main → renderer: EngineExit. */
  engineExit: 'crane:engine-exit',
  /** renderer → main (invoke): start a new engine process. */
  restartEngine: 'crane:restart-engine',
  /** renderer → main (invoke): DirectoryPurpose → string | null. */
  pickDirectory: 'crane:pick-directory',
  /** main → renderer: MenuCommand. */
  menuCommand: 'crane:menu-command',
  /** main → renderer: OpenRequest. */
  openRequest: 'crane:open-request',
  /** renderer → main: an open-request listener is installed; send what is queued. */
  openRequestsReady: 'crane:open-requests-ready',
} as const;

/**
 * The `type` of the window message that carries the engine port: equal to engine/protocol's
 * ENGINE_PORT_MESSAGE (a test checks). Repeated here so the preload bundle does not pull in the
 * protocol client and zod just for one string.
 */
export const ENGINE_PORT_WINDOW_MESSAGE = 'crane:engine-port';

export const DIRECTORY_PURPOSES: readonly DirectoryPurpose[] = ['instruct', 'thinking', 'project', 'export', 'calibration'];
export const MENU_COMMANDS: readonly MenuCommand[] = ['open-pair', 'open-project', 'export', 'undo', 'redo'];

/** IPC arguments are untrusted input even from a trusted sender: check them. */
export function isDirectoryPurpose(value: unknown): value is DirectoryPurpose {
  return typeof value === 'string' && (DIRECTORY_PURPOSES as readonly string[]).includes(value);
}

/** A nonce main attaches to a port: what the preload forwards, nothing else. */
export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && /^[\w-]{16,64}$/.test(value);
}
