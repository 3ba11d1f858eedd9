/**
 * Just enough of Electron's main-process API, recording what main/main.ts does with it, so main's
 * wiring runs in vitest where no Electron binary exists (`vi.mock('electron', …)`).
 */
import { EventEmitter } from 'node:events';

type Handler = (...args: never[]) => unknown;

export class FakeWebContents extends EventEmitter {
  readonly sent: Array<[string, unknown]> = [];
  readonly posted: Array<[string, unknown, unknown[]]> = [];
  readonly mainFrame = { url: 'crane://app/index.html', parent: null };
  windowOpenHandler: Handler | undefined;
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }
  postMessage(channel: string, message: unknown, transfer: unknown[]): void {
    this.posted.push([channel, message, transfer]);
  }
  setWindowOpenHandler(handler: Handler): void {
    this.windowOpenHandler = handler;
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static readonly all: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  loadedUrl: string | undefined;
  constructor(readonly options: { webPreferences: Record<string, unknown> }) {
    super();
    FakeBrowserWindow.all.push(this);
  }
  loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    return Promise.resolve();
  }
  isDestroyed(): boolean {
    return false;
  }
  show(): void {}
}

export class FakeChild extends EventEmitter {
  static readonly all: FakeChild[] = [];
  readonly posted: Array<[unknown, unknown[]]> = [];
  readonly pid = 4242 + FakeChild.all.length;
  constructor(
    readonly entry: string,
    readonly args: readonly string[] = [],
  ) {
    super();
    FakeChild.all.push(this);
  }
  postMessage(message: unknown, transfer: unknown[]): void {
    this.posted.push([message, transfer]);
  }
  kill(): boolean {
    queueMicrotask(() => this.emit('exit', 15));
    return true;
  }
}

export function createFakeElectron(userData: string, { packaged = false } = {}) {
  const appEvents = new EventEmitter();
  const record = {
    privilegedSchemes: [] as unknown[],
    protocolHandlers: new Map<string, (request: { url: string; method: string }) => Promise<Response>>(),
    ipcOn: new Map<string, Handler>(),
    ipcHandle: new Map<string, Handler>(),
    menus: [] as unknown[],
    recentDocuments: [] as string[],
    permissionRequest: undefined as Handler | undefined,
    permissionCheck: undefined as Handler | undefined,
    blockedUrls: [] as string[],
    sandboxEnabledBeforeReady: false,
    ready: false,
  };
  let port = 0;
  const electron = {
    app: {
      isPackaged: packaged,
      enableSandbox: () => (record.sandboxEnabledBeforeReady = !record.ready),
      whenReady: () => Promise.resolve().then(() => void (record.ready = true)),
      on: (event: string, listener: (...args: unknown[]) => void) => appEvents.on(event, listener),
      getPath: () => userData,
      addRecentDocument: (path: string) => record.recentDocuments.push(path),
      clearRecentDocuments: () => (record.recentDocuments.length = 0),
      exit: (code: number) => {
        throw new Error(`app.exit(${code})`);
      },
      quit: () => undefined,
    },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => record.privilegedSchemes.push(...schemes.map((s) => ({ s, beforeReady: !record.ready }))),
      handle: (scheme: string, handler: (request: { url: string; method: string }) => Promise<Response>) => record.protocolHandlers.set(scheme, handler),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: Handler) => (record.permissionRequest = h),
        setPermissionCheckHandler: (h: Handler) => (record.permissionCheck = h),
        setDevicePermissionHandler: () => undefined,
        setSpellCheckerEnabled: () => undefined,
        webRequest: { onBeforeRequest: (filter: { urls: string[] }) => record.blockedUrls.push(...filter.urls) },
      },
    },
    BrowserWindow: FakeBrowserWindow,
    Menu: { buildFromTemplate: (template: unknown) => template, setApplicationMenu: (menu: unknown) => record.menus.push(menu) },
    MessageChannelMain: class {
      readonly port1 = { name: `port${++port}`, close: () => undefined };
      readonly port2 = { name: `port${++port}`, close: () => undefined };
    },
    utilityProcess: { fork: (entry: string, args: string[] = []) => new FakeChild(entry, args) },
    ipcMain: {
      on: (channel: string, h: Handler) => record.ipcOn.set(channel, h),
      handle: (channel: string, h: Handler) => record.ipcHandle.set(channel, h),
    },
    dialog: { showOpenDialog: () => Promise.resolve({ canceled: false, filePaths: ['/picked/project'] }) },
  };
  return { electron, record, appEvents };
}
