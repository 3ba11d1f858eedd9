/**
 * main/main.ts as a packaged build (app.isPackaged), against the recording fake of Electron: no
 * DevTools, no reload, neither from the menu nor from the keyboard.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createFakeElectron, FakeBrowserWindow } from '../testing/fake-electron.ts';

const fake = vi.hoisted(() => ({ current: undefined as ReturnType<typeof createFakeElectron> | undefined }));
vi.mock('electron', () => fake.current?.electron ?? {});

const { record } = (fake.current = createFakeElectron(mkdtempSync(join(tmpdir(), 'crane-main-packaged-')), { packaged: true }));
const window = () => FakeBrowserWindow.all[0] as FakeBrowserWindow;

beforeAll(async () => {
  vi.stubEnv('CRANE_DATA_DIR', '');
  await import('./main.ts');
  await new Promise((resolve) => setTimeout(resolve, 10));
});

describe('electron main, packaged', () => {
  it('creates the window with DevTools disabled', () => {
    expect(window().options.webPreferences).toMatchObject({ devTools: false, contextIsolation: true, sandbox: true });
  });

  it('offers no reload or DevTools in the menu', () => {
    const menu = JSON.stringify(record.menus.at(-1));
    expect(menu).toContain('Restart Engine');
    for (const role of ['reload', 'forceReload', 'toggleDevTools']) expect(menu).not.toContain(`"${role}"`);
  });

  it('swallows reload and DevTools keys, and passes the rest to the page', () => {
    const press = (input: Record<string, unknown>) => {
      const event = { preventDefault: vi.fn() };
      window().webContents.emit('before-input-event', event, { type: 'keyDown', control: false, meta: false, shift: false, alt: false, ...input });
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(press({ key: 'I', control: true, shift: true })).toBe(true);
    expect(press({ key: 'r', control: true })).toBe(true);
    expect(press({ key: 'F5' })).toBe(true);
    expect(press({ key: 'z', control: true })).toBe(false);
  });
});
