/** Electron menu items and open requests (recent projects, the launch pair) → store and actions. */
import type { AppStore } from '../store/app-store.ts';
import type { EngineActions } from '../store/engine-actions.ts';
import type { CraneBridge } from './crane-bridge.ts';

export function bindBridgeCommands(bridge: CraneBridge, store: AppStore, actions: EngineActions): () => void {
  const offMenu = bridge.onMenuCommand((command) => {
    const s = store.getState();
    if (command === 'open-pair') s.setView('pair');
    else if (command === 'open-project') s.setView('pair');
    else if (command === 'export') s.setExportOpen(true);
    else if (command === 'undo') s.undo();
    else if (command === 'redo') s.redo();
  });
  const offOpen = bridge.onOpenRequest((request) => {
    const s = store.getState();
    s.setView('pair');
    if (request.kind === 'project') void actions.openProject(request.projectDir);
    else {
      s.setPairPaths({ instructPath: request.instruct, thinkingPath: request.thinking });
      void actions.openPair();
    }
  });
  return () => {
    offMenu();
    offOpen();
  };
}
