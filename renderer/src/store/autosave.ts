/**
 * Autosave: what the researcher sets (α, q, τ, k, overrides, locks, the analysis settings) and
 * what Verify measured is written to the open project's project.json shortly after it changes,
 * so a reload or a crash loses nothing. The engine writes the file atomically (temp + rename).
 *
 *   bindAutosave(store, save, delayMs) → unbind
 *
 * The page compares the content it would write with the content project.json holds
 * (`project.save.savedKey`): equal is 'saved', different is 'unsaved' until the debounced write
 * ends ('saving' → 'saved' or 'error'). Loading a project sets savedKey to what it read, so
 * opening one never writes it back. The active view is the page's, remembered per project in
 * localStorage (saved-view.ts).
 */
import type { Params } from '../protocol.ts';
import { settingsKey } from '../lib/settings-key.ts';
import { UNSET_ANALYSIS } from './analysis-slice.ts';
import type { AppState, AppStore } from './app-store.ts';
import { rememberView } from './saved-view.ts';

type ProjectFile = Params<'saveProject'>['project'];

export const AUTOSAVE_DELAY_MS = 700;

/**
 * What project.json gets from the page. The pair is the one the engine filed into the open
 * project (a path typed but not opened is not saved); with no project open, the typed pair.
 */
export function projectContent(state: AppState): ProjectFile {
  const open = state.project.state.result;
  return {
    instruct: open === null ? state.pair.instructPath || null : open.project.instruct,
    thinking: open === null ? state.pair.thinkingPath || null : open.project.thinking,
    // The page's project state is replaced by what it saves: without the Base it would forget it.
    ...baseOf(state),
    analysis: state.analysis.settings === UNSET_ANALYSIS ? null : state.analysis.settings,
    settings: state.settings.current,
    verified: state.verify.measured,
  };
}

/** The Base key exactly as the engine's project has it (absent, null or a path), or the typed path with no project open. */
function baseOf(state: AppState): Pick<ProjectFile, 'base'> {
  const open = state.project.state.result;
  if (open === null) return state.pair.basePath.trim() === '' ? {} : { base: state.pair.basePath.trim() };
  return open.project.base === undefined ? {} : { base: open.project.base };
}

export function projectContentKey(content: ProjectFile): string {
  return JSON.stringify({ ...content, settings: JSON.parse(settingsKey(content.settings)) as unknown });
}

const watched = (s: AppState) => [s.settings.current, s.analysis.settings, s.verify.measured, s.project.save.savedKey, s.project.state.result] as const;

export function bindAutosave(store: AppStore, save: () => Promise<void>, delayMs = AUTOSAVE_DELAY_MS): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const unsubscribe = store.subscribe((s, prev) => {
    const dir = s.project.state.result?.projectDir;
    if (dir !== undefined && s.ui.view !== prev.ui.view) rememberView(dir, s.ui.view);
    if (watched(s).every((v, i) => v === watched(prev)[i])) return;
    if (s.project.state.result === null || s.project.save.savedKey === null || s.project.save.status === 'saving') return;
    const content = projectContent(s);
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (projectContentKey(content) === s.project.save.savedKey) {
      if (s.project.save.status === 'unsaved') s.setProjectSave({ status: 'saved' });
      return;
    }
    if (s.project.save.status !== 'unsaved' && s.project.save.status !== 'error') s.setProjectSave({ status: 'unsaved' });
    timer = setTimeout(() => {
      timer = null;
      void save();
    }, delayMs);
  });
  return () => {
    if (timer !== null) clearTimeout(timer);
    unsubscribe();
  };
}
