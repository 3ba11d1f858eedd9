/**
 * The studio's window: locked-down web preferences, the app URL, and the main → renderer
 * messages (menu commands, open requests queued until the UI listens, engine exits, starts and
 * ports). Packaged builds get no DevTools and no reload (developer-shortcuts.ts).
 */
import { BrowserWindow, type MessagePortMain } from 'electron';
import type { EngineExit, MenuCommand, OpenRequest } from '../../engine/protocol/desktop-bridge.ts';
import { IPC } from '../common/ipc-channels.ts';
import { APP_ENTRY_URL } from './app-origin.ts';
import { isDeveloperShortcut } from './developer-shortcuts.ts';

export class StudioWindow {
  readonly window: BrowserWindow;
  private pending: OpenRequest[] = [];
  private uiListening = false;

  constructor(preloadPath: string, { packaged }: { readonly packaged: boolean }) {
    this.window = new BrowserWindow({
      width: 1440,
      height: 900,
      minWidth: 960,
      minHeight: 600,
      title: 'CRANE Studio',
      show: false,
      webPreferences: {
        preload: preloadPath,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        experimentalFeatures: false,
        devTools: !packaged,
      },
    });
    this.window.once('ready-to-show', () => this.window.show());
    // A reload starts a new page: its UI has to subscribe again before requests are delivered.
    this.window.webContents.on('did-start-loading', () => (this.uiListening = false));
    if (packaged) {
      this.window.webContents.on('before-input-event', (event, input) => {
        if (isDeveloperShortcut(input)) event.preventDefault();
      });
    }
  }

  load(): Promise<void> {
    return this.window.loadURL(APP_ENTRY_URL);
  }

  get contents() {
    return this.window.webContents;
  }

  isAlive(): boolean {
    return !this.window.isDestroyed();
  }

  menuCommand(command: MenuCommand): void {
    if (this.isAlive()) this.contents.send(IPC.menuCommand, command);
  }

  /** Delivered now if the UI listens, else when it subscribes (`uiReady`). */
  openRequest(request: OpenRequest): void {
    if (this.uiListening && this.isAlive()) this.contents.send(IPC.openRequest, request);
    else this.pending.push(request);
  }

  uiReady(): void {
    this.uiListening = true;
    for (const request of this.pending.splice(0)) this.openRequest(request);
  }

  engineExited(exit: EngineExit): void {
    if (this.isAlive()) this.contents.send(IPC.engineExit, exit);
  }

  /** A new engine process is starting: a page without a live port can ask for one now. */
  engineStarting(): void {
    if (this.isAlive()) this.contents.send(IPC.engineStart);
  }

  /** The window's end of a fresh engine channel; the preload forwards it to the page. */
  givePort(port: MessagePortMain, nonce: string): void {
    if (this.isAlive()) this.contents.postMessage(IPC.enginePort, { nonce }, [port]);
    else port.close();
  }
}
