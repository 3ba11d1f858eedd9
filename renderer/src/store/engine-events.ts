/**
 * Engine push events → store, outside React. Progress is routed by stage: the analysis stages
 * to the analysis panel, 'verify' to the running Verify, 'export' to the export dialog. A closed
 * connection is the connection supervisor's business (start-studio.ts).
 */
import type { EngineApi } from '../engine-link/engine-api.ts';
import type { AppStore } from './app-store.ts';
import type { EngineActions } from './engine-actions.ts';

export function bindEngineEvents(api: EngineApi, store: AppStore, actions: EngineActions): () => void {
  const offs = [
    api.on('progress', (p) => {
      const s = store.getState();
      // Late events of a job that already ended (cancelled, failed) change nothing.
      if (p.stage === 'export') {
        if (s.exporting.status === 'running') s.setExportJob({ fraction: p.fraction, etaSeconds: p.etaSeconds });
      } else if (p.stage === 'verify') actions.verifyJobs.progress(p.fraction);
      else s.applyProgress(p);
    }),
    api.on('stageDone', (p) => store.getState().applyStageDone(p)),
    api.on('log', (p) => store.getState().appendLog(p)),
    api.on('error', (e) => store.getState().appendLog({ level: 'error', message: `${e.code}: ${e.message}`, requestId: null })),
  ];
  return () => offs.forEach((off) => off());
}
