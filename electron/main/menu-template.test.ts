import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { menuTemplate, type MenuActions } from './menu-template.ts';

const actions = (): MenuActions => ({ command: vi.fn(), openRecent: vi.fn(), clearRecent: vi.fn(), restartEngine: vi.fn() });

const submenu = (items: MenuItemConstructorOptions[], label: string) =>
  (items.find((item) => item.label === label)?.submenu ?? []) as MenuItemConstructorOptions[];
const click = (item: MenuItemConstructorOptions | undefined) => (item?.click as (() => void) | undefined)?.();

describe('application menu', () => {
  it('has Open Pair…, Open Project…, Export… and the recent projects', () => {
    const a = actions();
    const file = submenu(menuTemplate(a, { recentProjects: ['/p/one', '/p/two'], isMac: false, developer: false }), 'File');
    expect(file.map((item) => item.label).filter(Boolean)).toEqual(['Open Pair…', 'Open Project…', 'Open Recent Project', 'Export…']);
    const recent = file.find((item) => item.label === 'Open Recent Project')?.submenu as MenuItemConstructorOptions[];
    click(recent[1]);
    expect(a.openRecent).toHaveBeenCalledWith('/p/two');
    click(recent.find((item) => item.label === 'Clear Recent Projects'));
    expect(a.clearRecent).toHaveBeenCalled();
    for (const item of file) click(item);
    expect(vi.mocked(a.command).mock.calls.flat()).toEqual(['open-pair', 'open-project', 'export']);
  });

  it('sends undo and redo to the page without capturing their keys', () => {
    const a = actions();
    const edit = submenu(menuTemplate(a, { recentProjects: [], isMac: false, developer: false }), 'Edit');
    for (const item of edit.slice(0, 2)) {
      expect(item.registerAccelerator).toBe(false);
      click(item);
    }
    expect(vi.mocked(a.command).mock.calls.flat()).toEqual(['undo', 'redo']);
  });

  it('shows a disabled placeholder when there are no recent projects', () => {
    const file = submenu(menuTemplate(actions(), { recentProjects: [], isMac: false, developer: false }), 'File');
    const recent = file.find((item) => item.label === 'Open Recent Project')?.submenu as MenuItemConstructorOptions[];
    expect(recent).toEqual([{ label: 'No Recent Projects', enabled: false }]);
  });

  it('offers an engine restart, and developer tools only in development', () => {
    const a = actions();
    const template = menuTemplate(a, { recentProjects: [], isMac: true, developer: false });
    click(submenu(template, 'Engine')[0]);
    expect(a.restartEngine).toHaveBeenCalled();
    expect(JSON.stringify(template)).not.toContain('toggleDevTools');
    expect(JSON.stringify(menuTemplate(a, { recentProjects: [], isMac: false, developer: true }))).toContain('toggleDevTools');
  });
});
