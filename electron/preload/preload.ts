/**
 * The preload: the page's only door to main. It exposes one narrow object, `window.crane`
 * (CraneBridge, engine/protocol/desktop-bridge.ts), never ipcRenderer itself or an IPC
 * event (whose `sender` would be ipcRenderer). Listeners get payloads only.
 *
 * contextBridge cannot carry MessagePorts, so the engine port takes the documented route:
 * main → ipcRenderer event.ports → window.postMessage({type, nonce}, '*', [port]) into the page,
 * which checks that the message came from its own window and carries the nonce it was given.
 *
 * Runs sandboxed: bundled to one CommonJS file; only `electron` may be required.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  ENGINE_PORT_MESSAGE,
  isNonce,
  type CraneBridge,
  type DirectoryPurpose,
  type EngineExit,
  type EnginePortMessage,
  type MenuCommand,
  type OpenRequest,
} from '../../engine/protocol/desktop-bridge.ts';
import { IPC } from '../common/ipc-channels.ts';

/** The page's window; the root tsconfig has no DOM lib, so only what is used is typed. */
const page = globalThis as unknown as { postMessage(message: unknown, targetOrigin: string, transfer: readonly unknown[]): void };

function subscribe<T>(channel: string, listener: (payload: T) => void): () => void {
  const forward = (_event: IpcRendererEvent, payload: T) => listener(payload);
  ipcRenderer.on(channel, forward);
  return () => void ipcRenderer.removeListener(channel, forward);
}

ipcRenderer.on(IPC.enginePort, (event, payload: { nonce?: unknown } | null) => {
  const nonce = payload?.nonce;
  if (event.ports.length !== 1 || !isNonce(nonce)) return;
  // '*' is safe: the target is this very window, and navigation away from the app is blocked.
  const message: EnginePortMessage = { type: ENGINE_PORT_MESSAGE, nonce };
  page.postMessage(message, '*', event.ports);
});

const bridge: CraneBridge = {
  bridgeVersion: 1,
  platform: process.platform,
  requestEnginePort: async () => (await ipcRenderer.invoke(IPC.requestEnginePort)) as { nonce: string },
  onEngineExit: (listener) => subscribe<EngineExit>(IPC.engineExit, listener),
  onEngineStart: (listener) => subscribe<unknown>(IPC.engineStart, () => listener()),
  restartEngine: async () => {
    await ipcRenderer.invoke(IPC.restartEngine);
  },
  pickDirectory: async (purpose: DirectoryPurpose) => (await ipcRenderer.invoke(IPC.pickDirectory, purpose)) as string | null,
  onMenuCommand: (listener) => subscribe<MenuCommand>(IPC.menuCommand, listener),
  onOpenRequest: (listener) => {
    const off = subscribe<OpenRequest>(IPC.openRequest, listener);
    ipcRenderer.send(IPC.openRequestsReady);
    return off;
  },
};

contextBridge.exposeInMainWorld('crane', bridge);
