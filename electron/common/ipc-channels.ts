/**
 * IPC channel names: the contract between main and the preload (both bundle this file). What
 * travels on them is typed in engine/protocol/desktop-bridge.ts.
 */
export const IPC = {
  /** renderer → main (invoke): make a channel to the engine; answers {nonce}. */
  requestEnginePort: 'crane:request-engine-port',
  /** main → renderer: {nonce} with the port in event.ports (the preload re-posts it to the page). */
  enginePort: 'crane:engine-port',
  /** main → renderer: EngineExit — the engine the page's port leads to is gone. */
  engineExit: 'crane:engine-exit',
  /** main → renderer: a new engine process is starting; a port requested now reaches it. */
  engineStart: 'crane:engine-start',
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
