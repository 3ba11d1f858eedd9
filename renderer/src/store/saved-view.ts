/**
 * The active view per project, kept in the page's localStorage: a reload (or the next visit)
 * brings the researcher back to the tab they were on. Storage that is unavailable or full
 * (private windows, quotas) only means the view is not remembered.
 */
import { VIEWS, type ViewId } from './ui-slice.ts';

const storageKey = (projectDir: string) => `crane.view:${projectDir}`;

export function rememberView(projectDir: string, view: ViewId): void {
  try {
    globalThis.localStorage?.setItem(storageKey(projectDir), view);
  } catch {
    // Not remembered: the next load starts on the first view.
  }
}

export function rememberedView(projectDir: string): ViewId | null {
  let stored: string | null = null;
  try {
    stored = globalThis.localStorage?.getItem(storageKey(projectDir)) ?? null;
  } catch {
    return null;
  }
  return VIEWS.find((v) => v.id === stored)?.id ?? null;
}
