/**
 * Asks the engine which built-in pairs it has (listBuiltinPairs) for the project list. An engine
 * without the method, or one that fails to prepare them, offers none: the list is an offer, not
 * something the studio needs to work.
 */
import type { AppStore } from './app-store.ts';
import type { EngineActions } from './engine-actions.ts';

export async function loadBuiltinPairs(store: AppStore, actions: Pick<EngineActions, 'run'>): Promise<void> {
  const builtins = await actions.run('listBuiltinPairs', {}).catch(() => []);
  store.getState().setBuiltinProjects(builtins);
}
