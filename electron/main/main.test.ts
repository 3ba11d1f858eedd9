/**
 * main/main.ts wired against a recording fake of Electron (no binary here): what it registers before
 * `ready`, the window it creates, the protocol it serves, and the IPC it answers and refuses.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC } from '../common/ipc-channels.ts';
import { createFakeElectron, FakeBrowserWindow, FakeChild, FakeWebContents } from '../testing/fake-electron.ts';

const userData = mkdtempSync(join(tmpdir(), 'crane-main-test-'));
const fake = vi.hoisted(() => ({ current: undefined as ReturnType<typeof createFakeElectron> | undefined }));
vi.mock('electron', () => fake.current?.electron ?? {});

const { record, appEvents } = (fake.current = createFakeElectron(userData));
const flush = () => new Promise((resolve) => setTimeout(resolve, 10));

const window = () => FakeBrowserWindow.all[0] as FakeBrowserWindow;
const engine = () => FakeChild.all.at(-1) as FakeChild;
const eventFrom = (sender: FakeWebContents, url = 'crane://app/index.html') => ({ sender, senderFrame: url === sender.mainFrame.url ? sender.mainFrame : { url, parent: null } });
const fromSubFrame = (sender: FakeWebContents) => ({ sender, senderFrame: { url: 'crane://app/index.html', parent: sender.mainFrame } });

beforeAll(async () => {
  process.argv.push('--instruct', '/demo/instruct', '--thinking', '/demo/thinking');
  // The engine's data folder is the app's userData unless CRANE_DATA_DIR says otherwise.
  vi.stubEnv('CRANE_DATA_DIR', '');
  await import('./main.ts');
  await flush();
});

describe('electron main (against a fake Electron)', () => {
  it('registers the crane scheme as standard and secure and enables the sandbox before ready', () => {
    expect(record.privilegedSchemes).toEqual([{ s: { scheme: 'crane', privileges: expect.objectContaining({ standard: true, secure: true }) }, beforeReady: true }]);
    expect(record.sandboxEnabledBeforeReady).toBe(true);
  });

  it('opens one locked-down window on crane://app and starts the engine in a utility process', () => {
    expect(FakeBrowserWindow.all).toHaveLength(1);
    expect(window().loadedUrl).toBe('crane://app/index.html');
    expect(window().options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    expect(String(window().options.webPreferences['preload'])).toMatch(/preload\.cjs$/);
    expect(engine().entry).toMatch(/engine-process\.mjs$/);
    // …told where the user's data lives, so it can open the demo project there.
    expect(engine().args).toEqual(['--data-dir', userData]);
  });

  it('serves the app protocol with the CSP, and denies permissions and network requests', async () => {
    // Run from the sources no renderer build sits next to main, so GET answers the "not built"
    // page; path traversal is refused in app-protocol.test.ts against a real build folder.
    const handler = record.protocolHandlers.get('crane');
    const page = await handler?.({ url: 'crane://app/index.html', method: 'GET' });
    expect(page?.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page?.text()).toContain('has not been built');
    expect((await handler?.({ url: 'crane://app/index.html', method: 'POST' }))?.status).toBe(405);
    const answer = vi.fn();
    record.permissionRequest?.(...([null, 'media', answer] as never[]));
    expect(answer).toHaveBeenCalledWith(false);
    expect(record.permissionCheck?.()).toBe(false);
    expect(record.blockedUrls).toEqual(expect.arrayContaining(['http://*/*', 'https://*/*', 'file://*/*']));
  });

  it('denies navigation, window.open and webviews in every WebContents', () => {
    const contents = new FakeWebContents();
    appEvents.emit('web-contents-created', {}, contents);
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const preventDefault = vi.fn();
      contents.emit(event, { preventDefault });
      expect(preventDefault, event).toHaveBeenCalled();
    }
    expect(contents.windowOpenHandler?.()).toEqual({ action: 'deny' });
  });

  it('hands the window one end of a new channel and the engine the other, with a nonce', async () => {
    const child = engine();
    const reply = record.ipcHandle.get(IPC.requestEnginePort)?.(...([eventFrom(window().webContents)] as never[])) as Promise<{ nonce: string }>;
    child.emit('spawn');
    const { nonce } = await reply;
    expect(nonce).toMatch(/^[\w-]{16,64}$/);
    const [[message, enginePorts]] = child.posted as [[unknown, Array<{ name: string }>]];
    expect(message).toEqual({ type: 'connect' });
    const [channel, payload, windowPorts] = window().webContents.posted.at(-1) as [string, unknown, Array<{ name: string }>];
    expect([channel, payload]).toEqual([IPC.enginePort, { nonce }]);
    expect(windowPorts[0]?.name).not.toBe(enginePorts[0]?.name);
  });

  it('refuses IPC from other origins, sub-frames and other WebContents, and bad arguments', async () => {
    const handler = record.ipcHandle.get(IPC.requestEnginePort) as (event: unknown) => unknown;
    expect(() => handler(eventFrom(window().webContents, 'https://evil.example/'))).toThrow(/refused/);
    expect(() => handler(eventFrom(new FakeWebContents()))).toThrow(/refused/);
    expect(() => handler(fromSubFrame(window().webContents))).toThrow(/refused/);
    const pick = record.ipcHandle.get(IPC.pickDirectory) as (event: unknown, purpose: unknown) => Promise<unknown>;
    expect(() => pick(eventFrom(window().webContents), '../etc')).toThrow(/purpose/);
  });

  it('queues the launch pair until the UI listens, then delivers it', () => {
    expect(window().webContents.sent.filter(([c]) => c === IPC.openRequest)).toEqual([]);
    record.ipcOn.get(IPC.openRequestsReady)?.(...([eventFrom(window().webContents)] as never[]));
    expect(window().webContents.sent.filter(([c]) => c === IPC.openRequest)).toEqual([
      [IPC.openRequest, { kind: 'pair', instruct: '/demo/instruct', thinking: '/demo/thinking' }],
    ]);
  });

  it('remembers a picked project in userData and in the menu', async () => {
    const pick = record.ipcHandle.get(IPC.pickDirectory) as (event: unknown, purpose: unknown) => Promise<unknown>;
    expect(await pick(eventFrom(window().webContents), 'project')).toBe('/picked/project');
    const saved = () => {
      try {
        return (JSON.parse(readFileSync(join(userData, 'recent-projects.json'), 'utf8')) as { projects: string[] }).projects;
      } catch {
        return undefined;
      }
    };
    await expect.poll(saved).toEqual(['/picked/project']);
    expect(record.recentDocuments).toEqual(['/picked/project']);
    expect(JSON.stringify(record.menus.at(-1))).toContain('/picked/project');
  });

  it('tells the window when the engine dies, refuses ports until a restart, then serves again', async () => {
    const child = engine();
    child.emit('exit', 9);
    expect(window().webContents.sent.at(-1)).toEqual([IPC.engineExit, { code: 9, reason: expect.stringContaining('exit code 9') }]);
    const request = record.ipcHandle.get(IPC.requestEnginePort) as (event: unknown) => Promise<unknown>;
    await expect(request(eventFrom(window().webContents))).rejects.toThrow(/not running/);
    await (record.ipcHandle.get(IPC.restartEngine) as (event: unknown) => Promise<void>)(eventFrom(window().webContents));
    expect(engine()).not.toBe(child);
    const reply = request(eventFrom(window().webContents));
    engine().emit('spawn');
    await expect(reply).resolves.toMatchObject({ nonce: expect.any(String) });
    // A page left without an engine learns that a new one is starting.
    expect(window().webContents.sent).toContainEqual([IPC.engineStart, undefined]);
  });

  it('Engine ▸ Restart Engine: the page hears its engine exit, then a start, and its next port leads to the new process', async () => {
    const old = engine();
    old.emit('spawn');
    const sent = window().webContents.sent;
    const before = sent.length;
    const engineMenu = (record.menus.at(-1) as Array<{ label?: string; submenu?: Array<{ click?: () => void }> }>).find((m) => m.label === 'Engine');
    engineMenu?.submenu?.[0]?.click?.();
    expect(sent.slice(before)).toEqual([
      [IPC.engineExit, { code: null, reason: 'the engine was restarted' }],
      [IPC.engineStart, undefined],
    ]);
    // The killed process's own exit (code 15) is not reported as a crash.
    await flush();
    expect(sent.slice(before + 2).filter(([channel]) => channel === IPC.engineExit)).toEqual([]);
    const fresh = engine();
    expect(fresh).not.toBe(old);
    const reply = (record.ipcHandle.get(IPC.requestEnginePort) as (event: unknown) => Promise<{ nonce: string }>)(eventFrom(window().webContents));
    fresh.emit('spawn');
    const { nonce } = await reply;
    expect(fresh.posted.map(([message]) => message)).toEqual([{ type: 'connect' }]);
    expect(window().webContents.posted.at(-1)?.slice(0, 2)).toEqual([IPC.enginePort, { nonce }]);
  });

  it('development builds keep DevTools and reload', () => {
    expect(window().options.webPreferences['devTools']).toBe(true);
    expect(JSON.stringify(record.menus.at(-1))).toContain('toggleDevTools');
    expect(window().webContents.listenerCount('before-input-event')).toBe(0);
  });
});
