/**
 * The baselines' parameters as the Methods view edits them (CRANE's live in the settings slice,
 * shared with the Edit view). Verify, Export and the side-by-side panes run methodOf(state, name).
 */
import { methodFromParameters, type MergeMethod, type MergeMethodName, type ParameterValues } from '../protocol.ts';
import type { AppState } from './app-store.ts';
import type { SliceCreator } from './slice.ts';

export interface MethodsSlice {
  /** Values the user set, by method and parameter key; the rest are the method's defaults. */
  methodParameters: Partial<Record<MergeMethodName, ParameterValues>>;
  /** Sets one baseline parameter to a value its schema accepts (the form checks it first). */
  setMethodParameter(method: Exclude<MergeMethodName, 'crane'>, key: string, value: number | string): void;
}

export const createMethodsSlice: SliceCreator<MethodsSlice> = (set) => ({
  methodParameters: {},
  setMethodParameter: (method, key, value) =>
    set((s) => ({ methodParameters: { ...s.methodParameters, [method]: { ...s.methodParameters[method], [key]: value } } })),
});

/** The method as the user set it: CRANE with the current edit settings, a baseline with its parameters. */
export function methodOf(state: Pick<AppState, 'methodParameters' | 'settings'>, name: MergeMethodName): MergeMethod {
  return methodFromParameters(name, name === 'crane' ? {} : (state.methodParameters[name] ?? {}), state.settings.current);
}
