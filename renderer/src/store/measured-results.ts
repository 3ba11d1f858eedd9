/**
 * Which measured result a view shows for a method: the newest one measured at exactly the
 * method's current settings, else the newest of that method flagged as from other settings.
 */
import type { MergeMethodName, VerifyResult } from '../protocol.ts';
import { settingsKey } from '../lib/settings-key.ts';
import type { AppState } from './app-store.ts';
import { methodOf } from './methods-slice.ts';

export interface ShownResult {
  readonly result: VerifyResult;
  /** Measured at the settings on screen now. */
  readonly current: boolean;
}

export function shownResult(state: Pick<AppState, 'methodParameters' | 'settings' | 'verify'>, name: MergeMethodName): ShownResult | null {
  const wanted = settingsKey(methodOf(state, name));
  const ofMethod = state.verify.measured.filter((r) => r.method.method === name);
  const matching = ofMethod.findLast((r) => settingsKey(r.method) === wanted);
  if (matching !== undefined) return { result: matching, current: true };
  const newest = ofMethod.at(-1);
  return newest === undefined ? null : { result: newest, current: false };
}

/** Whether the preview on screen was computed for the settings on screen. */
export function previewIsCurrent(state: Pick<AppState, 'previewFor' | 'settings'>): boolean {
  return state.previewFor !== null && state.previewFor === settingsKey(state.settings.current);
}

/**
 * The preview is left over from other settings: its request failed, or no request for the
 * settings on screen is on its way (while one is, the view is merely updating).
 */
export function previewIsStale(state: Pick<AppState, 'preview' | 'previewFor' | 'previewPending' | 'settings'>): boolean {
  if (state.preview.result === null) return false;
  return state.preview.status === 'error' || (!state.previewPending && !previewIsCurrent(state));
}
