/**
 * Packaged builds offer no developer tools and no reload: a reload drops the page's engine port
 * and state, and DevTools would hand anyone at the keyboard a console inside the app's origin.
 * The menu leaves those items out (menu-template.ts), the window is created with
 * `devTools: false` (studio-window.ts), and the window swallows the keys that would reach them.
 */

/** The fields of Electron's `before-input-event` Input this check reads. */
export interface KeyInput {
  readonly type: string;
  readonly key: string;
  readonly control: boolean;
  readonly meta: boolean;
  readonly shift: boolean;
  readonly alt: boolean;
}

/** Reload, hard reload, DevTools, the element picker and the console, on every platform's keys. */
export function isDeveloperShortcut(input: KeyInput): boolean {
  if (input.type !== 'keyDown') return false;
  const key = input.key.toLowerCase();
  if (key === 'f5' || key === 'f12') return true;
  const command = input.control || input.meta;
  if (!command) return false;
  if (key === 'r') return true;
  // Ctrl+Shift+I/J/C, and macOS's Cmd+Alt+I/J/C.
  return (input.shift || input.alt) && (key === 'i' || key === 'j' || key === 'c');
}
