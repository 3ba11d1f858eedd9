/**
 * Main's IPC surface. Each handler first checks its sender (our window's main frame, our origin,
 * see sender-check.ts) and then its arguments; anything else is dropped or rejected.
 */
import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent } from 'electron';
import { isDirectoryPurpose, type DirectoryPurpose } from '../../engine/protocol/desktop-bridge.ts';
import { IPC } from '../common/ipc-channels.ts';
import { isTrustedSender } from './sender-check.ts';
import type { StudioWindow } from './studio-window.ts';

export interface IpcDeps {
  readonly studio: () => StudioWindow | undefined;
  /** Hands the window a new engine port; resolves with its nonce, rejects if the engine is down. */
  connectEngine(studio: StudioWindow): Promise<{ nonce: string }>;
  restartEngine(): void;
  pickDirectory(studio: StudioWindow, purpose: DirectoryPurpose): Promise<string | null>;
}

export function registerIpc(deps: IpcDeps): void {
  /** The studio window this event came from, if the sender passes the check. */
  const trusted = (event: IpcMainEvent | IpcMainInvokeEvent): StudioWindow | undefined => {
    const studio = deps.studio();
    const frame = event.senderFrame;
    const ok = isTrustedSender({
      frameUrl: frame?.url ?? null,
      // A top frame has no parent (WebFrameMain wrappers are not guaranteed to be identical objects).
      isMainFrame: frame !== null && frame.parent === null,
      isOurWindow: studio !== undefined && studio.isAlive() && event.sender === studio.contents,
    });
    if (!ok) console.warn(`crane: refused IPC from ${frame?.url ?? 'a destroyed frame'}`);
    return ok ? studio : undefined;
  };
  const require = (event: IpcMainInvokeEvent): StudioWindow => {
    const studio = trusted(event);
    if (studio === undefined) throw new Error('refused: not the studio window');
    return studio;
  };

  ipcMain.handle(IPC.requestEnginePort, (event) => deps.connectEngine(require(event)));
  ipcMain.handle(IPC.restartEngine, (event) => {
    require(event);
    deps.restartEngine();
  });
  ipcMain.handle(IPC.pickDirectory, (event, purpose: unknown) => {
    const studio = require(event);
    if (!isDirectoryPurpose(purpose)) throw new Error('unknown directory purpose');
    return deps.pickDirectory(studio, purpose);
  });
  ipcMain.on(IPC.openRequestsReady, (event) => trusted(event)?.uiReady());
}
