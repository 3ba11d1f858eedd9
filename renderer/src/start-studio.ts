/**
 * Start-up outside React: bind the store's reactions and the project autosave, then keep the
 * page connected to its engine (connection-supervisor.ts). Each connection gets the push events bound and a ping; the first
 * restores the project the engine has open, later ones (after an engine restart) re-open the
 * page's own project so the studio carries on where it was.
 */
import { bindBridgeCommands } from './engine-link/bridge-commands.ts';
import { superviseConnection, type ConnectionSupervisor } from './engine-link/connection-supervisor.ts';
import { craneBridge } from './engine-link/crane-bridge.ts';
import type { EngineConnector } from './engine-link/engine-api.ts';
import type { AppStore } from './store/app-store.ts';
import { bindAutosave } from './store/autosave.ts';
import { loadBuiltinPairs } from './store/builtin-pairs.ts';
import type { EngineActions } from './store/engine-actions.ts';
import { bindEngineEvents } from './store/engine-events.ts';
import { bindReactions } from './store/reactions.ts';

export function startStudio(store: AppStore, connector: EngineConnector, actions: EngineActions): ConnectionSupervisor {
  bindReactions(store, actions);
  bindAutosave(store, () => actions.saveProject());
  store.getState().setConnection({ status: 'connecting', label: connector.label, synthetic: connector.kind === 'synthetic' });
  let unbindEvents = (): void => undefined;
  let bridgeBound = false;
  const supervisor = superviseConnection(connector, {
    connecting: (reconnecting) => store.getState().setConnection({ status: reconnecting ? 'reconnecting' : 'connecting', retryInMs: null }),
    open: async (api, reconnected) => {
      unbindEvents();
      unbindEvents = bindEngineEvents(api, store, actions);
      actions.attach(api);
      await api.call('ping', {});
      store.getState().setConnection({ status: 'open', message: null, retryInMs: null });
      await (reconnected ? actions.reopenProject() : actions.restoreProject());
      await loadBuiltinPairs(store, actions);
      const bridge = connector.kind === 'electron' && !bridgeBound ? craneBridge() : undefined;
      // After the engine is up, so open requests queued by main find a connected engine.
      if (bridge !== undefined) bindBridgeCommands(bridge, store, actions);
      bridgeBound ||= bridge !== undefined;
    },
    lost: (reason, retryInMs) => {
      actions.attach(null);
      store.getState().setConnection({ status: 'reconnecting', message: reason, retryInMs });
    },
  });
  store.getState().setReconnectNow(supervisor.retryNow);
  return supervisor;
}
