/** Page-level UI state: theme and the active view. */
import type { SliceCreator } from './slice.ts';

export type Theme = 'light' | 'dark';
export const VIEWS = [
  { id: 'pair', label: 'Pair & project' },
  { id: 'analysis', label: 'Analysis' },
  { id: 'tune', label: 'Tune' },
  { id: 'side-by-side', label: 'Side by side' },
  { id: 'compare', label: 'Methods' },
] as const;
export type ViewId = (typeof VIEWS)[number]['id'];

export interface UiSlice {
  ui: { theme: Theme; view: ViewId };
  setTheme(theme: Theme): void;
  setView(view: ViewId): void;
}

export const createUiSlice: SliceCreator<UiSlice> = (set) => ({
  ui: { theme: 'light', view: 'pair' },
  setTheme: (theme) => set((s) => ({ ui: { ...s.ui, theme } })),
  setView: (view) => set((s) => ({ ui: { ...s.ui, view } })),
});
