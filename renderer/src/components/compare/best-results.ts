/**
 * Which methods did best, among the results measured at the settings on screen now (a result
 * from other settings is not comparable): the lowest measured ΔL_R and the lowest ΔL_A, each a
 * method name, or null while fewer than two methods have a current result to compare.
 */
import { METHOD_NAMES } from '../../lib/merge-methods.ts';
import type { MergeMethodName } from '../../protocol.ts';
import type { AppState } from '../../store/app-store.ts';
import { shownResult } from '../../store/measured-results.ts';

export interface BestMethods {
  readonly reasoning: MergeMethodName | null;
  readonly agent: MergeMethodName | null;
}

export function bestMethods(state: Pick<AppState, 'methodParameters' | 'settings' | 'verify'>): BestMethods {
  const current = METHOD_NAMES.flatMap((name) => {
    const shown = shownResult(state, name);
    if (shown === null || !shown.current) return [];
    const { edited, base } = shown.result;
    return [{ name, reasoning: edited.reasoning - base.reasoning, agent: edited.agent - base.agent }];
  });
  if (current.length < 2) return { reasoning: null, agent: null };
  const lowest = (key: 'reasoning' | 'agent') => current.reduce((best, r) => (r[key] < best[key] ? r : best)).name;
  return { reasoning: lowest('reasoning'), agent: lowest('agent') };
}
