/**
 * The application menu as a template (Electron types only, no Electron call), rebuilt whenever
 * the recent-projects list changes.
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '../../engine/protocol/desktop-bridge.ts';

export interface MenuActions {
  /** Open Pair…, Open Project…, Export…, Undo, Redo: the UI carries them out. */
  command(command: MenuCommand): void;
  openRecent(projectDir: string): void;
  clearRecent(): void;
  restartEngine(): void;
}

export interface MenuContext {
  readonly recentProjects: readonly string[];
  readonly isMac: boolean;
  /** Developer tools and reload are offered in development only. */
  readonly developer: boolean;
}

export function menuTemplate(actions: MenuActions, { recentProjects, isMac, developer }: MenuContext): MenuItemConstructorOptions[] {
  const recent: MenuItemConstructorOptions[] =
    recentProjects.length === 0
      ? [{ label: 'No Recent Projects', enabled: false }]
      : [
          ...recentProjects.map((dir): MenuItemConstructorOptions => ({ label: dir, click: () => actions.openRecent(dir) })),
          { type: 'separator' },
          { label: 'Clear Recent Projects', click: () => actions.clearRecent() },
        ];
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Open Pair…', accelerator: 'CmdOrCtrl+O', click: () => actions.command('open-pair') },
      { label: 'Open Project…', accelerator: 'CmdOrCtrl+Shift+O', click: () => actions.command('open-project') },
      { label: 'Open Recent Project', submenu: recent },
      { type: 'separator' },
      { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => actions.command('export') },
      { type: 'separator' },
      isMac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  // Undo/redo act on the studio's settings history. Their keys are not registered as menu
  // accelerators, so they reach the page, which leaves them to text fields while one is focused.
  const edit: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { label: 'Undo', accelerator: 'CmdOrCtrl+Z', registerAccelerator: false, click: () => actions.command('undo') },
      { label: 'Redo', accelerator: 'CmdOrCtrl+Shift+Z', registerAccelerator: false, click: () => actions.command('redo') },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...(developer ? ([{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as const) : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const engine: MenuItemConstructorOptions = {
    label: 'Engine',
    submenu: [{ label: 'Restart Engine', click: () => actions.restartEngine() }],
  };
  return [...(isMac ? [{ role: 'appMenu' } as const] : []), file, edit, view, engine, { role: 'windowMenu' }];
}
