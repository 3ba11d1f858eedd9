/**
 * Start-up outside React: pick the engine connection, bind its push events and the store's
 * reactions, restore an open project. Returns once connected (or failed), never throws.
 */
import { bindBridgeCommands } from './engine-link/bridge-commands.ts';
import { craneBridge } from './engine-link/crane-bridge.ts';
import type { EngineConnector } from './engine-link/engine-api.ts';
import type { AppStore } from './store/app-store.ts';
import type { EngineActions } from './store/engine-actions.ts';
import { bindEngineEvents } from './store/engine-events.ts';
import { bindReactions } from './store/reactions.ts';

export async function startStudio(store: AppStore, connector: EngineConnector, actions: EngineActions): Promise<void> {
  bindReactions(store, actions);
  const s = store.getState();
  s.setConnection({ status: 'connecting', label: connector.label, synthetic: connector.kind === 'synthetic' });
  try {
    const api = await connector.connect();
    actions.attach(api);
    bindEngineEvents(api, store, actions);
    await api.call('ping', {});
    store.getState().setConnection({ status: 'open', message: null });
    await actions.restoreProject();
    const bridge = connector.kind === 'electron' ? craneBridge() : undefined;
    // After the engine is up, so open requests queued by main find a connected engine.
    if (bridge !== undefined) bindBridgeCommands(bridge, store, actions);
  } catch (error) {
    store.getState().setConnection({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}
