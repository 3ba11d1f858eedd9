/**
 * The desktop app through Playwright's _electron: the window loads crane://app with the narrow
 * bridge and no Node, the engine answers over the handed-over MessagePort, navigation and
 * window.open are refused, a killed engine is reported and restarted, and after Restart Engine
 * the page reconnects by itself.
 * Skips, loudly, where no Electron binary is installed.
 */
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { ENGINE_PORT_MESSAGE } from '../../engine/protocol/desktop-bridge.ts';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { collectPageErrors } from '../support/console-errors.ts';
import { electronBinary, NO_ELECTRON_MESSAGE } from '../support/electron-binary.ts';
import { engineExits, pageSurface, pingThroughBridge, recordEngineExits, restartEngine } from '../support/page-bridge.ts';

const binary = electronBinary();
if (binary === undefined) console.warn(NO_ELECTRON_MESSAGE);
test.skip(binary === undefined, NO_ELECTRON_MESSAGE);

let app: ElectronApplication;
let page: Page;
let errors: string[];

test.beforeEach(async () => {
  app = await electron.launch({
    executablePath: binary,
    // ROOT: Electron reads package.json "main". Chromium refuses its OS sandbox as root (CI containers).
    args: [ROOT, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    cwd: ROOT,
  });
  page = await app.firstWindow();
  errors = collectPageErrors(page);
  await page.waitForLoadState('domcontentloaded');
});

test.afterEach(async () => {
  await app.close();
});

const enginePid = () =>
  app.evaluate(({ app: electronApp }) => electronApp.getAppMetrics().find((m) => m.type === 'Utility' && m.serviceName === 'CRANE engine')?.pid);

test('the window shows the studio from crane://app with only window.crane exposed', async () => {
  expect(page.url()).toBe('crane://app/index.html');
  await expect(page).toHaveTitle('CRANE Studio');
  await expect(page.locator('#root')).not.toBeEmpty();
  expect(await page.evaluate(pageSurface)).toEqual({
    craneKeys: ['bridgeVersion', 'onEngineExit', 'onEngineStart', 'onMenuCommand', 'onOpenRequest', 'pickDirectory', 'platform', 'requestEnginePort', 'restartEngine'],
    bridgeVersion: 1,
    node: [],
  });
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the engine answers over the MessagePort main hands to the page', async () => {
  expect(JSON.parse(await page.evaluate(pingThroughBridge, ENGINE_PORT_MESSAGE))).toMatchObject({ id: 1, ok: true, result: { protocolVersion: 1 } });
});

test('navigation, window.open and foreign requests are refused', async () => {
  const opened = await page.evaluate(() => (globalThis as unknown as { open(url: string): unknown }).open('https://example.com') === null);
  expect(opened).toBe(true);
  await page.evaluate(() => {
    (globalThis as unknown as { location: { href: string } }).location.href = 'https://example.com/';
  });
  await page.waitForTimeout(500);
  expect(page.url()).toBe('crane://app/index.html');
  const fetched = await page.evaluate(() => fetch('https://example.com/').then(() => 'reached', () => 'refused'));
  expect(fetched).toBe('refused');
  expect(app.windows()).toHaveLength(1);
});

test('a killed engine is reported, and a restart brings a working engine back', async () => {
  await page.evaluate(recordEngineExits);
  const pid = await enginePid();
  expect(pid).toBeGreaterThan(0);
  process.kill(pid as number, 'SIGKILL');
  await expect.poll(() => page.evaluate(engineExits)).toHaveLength(1);
  // The UI's own connection closed: it says so.
  await expect(page.getByRole('alert')).toContainText('engine');
  await page.evaluate(restartEngine);
  await expect.poll(enginePid).not.toBe(pid);
  expect(JSON.parse(await page.evaluate(pingThroughBridge, ENGINE_PORT_MESSAGE))).toMatchObject({ ok: true });
  // The UI's own connection comes back by itself.
  await expect(page.locator('.conn')).toContainText('open');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('Engine ▸ Restart Engine: the page hears of it and reconnects by itself', async () => {
  await expect(page.locator('.conn')).toContainText('open');
  await page.evaluate(recordEngineExits);
  const pid = await enginePid();
  await app.evaluate(({ Menu }) => {
    const engineMenu = Menu.getApplicationMenu()?.items.find((item) => item.label === 'Engine');
    engineMenu?.submenu?.items.find((item) => item.label === 'Restart Engine')?.click();
  });
  await expect.poll(() => page.evaluate(engineExits)).toEqual(['the engine was restarted']);
  await expect.poll(enginePid).not.toBe(pid);
  await expect(page.locator('.conn')).toContainText('open');
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(errors).toEqual([]);
});
