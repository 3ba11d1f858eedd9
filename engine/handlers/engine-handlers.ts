/**
 * The handler map `crane serve` and the Electron engine process dispatch to: one EngineSession
 * (the open project and its loaded analysis) shared by every connection, and one handler per
 * method from engine/handlers/. Params and results are validated by the host at the boundary.
 *
 *   createEngineHandlers({ dataDir?, session? }) → Handlers
 *
 * `dataDir` is the host's per-user folder: a pair opened with no project open gets its project
 * there. Hosts open a start-up project (the demo pair's) with `session.open(dir)`.
 */
import { analyzeHandler } from './analyze-handler.ts';
import { blockPassesHandler } from './block-passes-handler.ts';
import { builtinPairsHandler } from './builtin-pairs-handler.ts';
import { withCheckpointDirs } from './checkpoint-dirs.ts';
import { checkpointSummary, tensorRows } from './checkpoint-views.ts';
import { EngineSession } from './engine-session.ts';
import { expertMetricsHandler } from './expert-metrics-handler.ts';
import { passMetricsHandler } from './pass-metrics-handler.ts';
import { exportHandler } from './export-handler.ts';
import { gateMetricsHandler } from './gate-metrics-handler.ts';
import { inspectLayerHandler } from './inspect-layer-handler.ts';
import { listDirectoriesHandler } from './list-directories-handler.ts';
import { openPairHandler } from './open-pair-handler.ts';
import { previewHandler } from './preview-handler.ts';
import { projectHandlers } from './project-handlers.ts';
import { referenceRunHandler } from './reference-run-handler.ts';
import { spectrumHandler } from './spectrum-handler.ts';
import { verifyHandler } from './verify-handler.ts';
import type { Handlers } from '../protocol/handlers.ts';
import { PROTOCOL_VERSION } from '../protocol/methods.ts';

export interface EngineHandlerOptions {
  readonly session?: EngineSession;
  readonly dataDir?: string;
}

export function createEngineHandlers(options: EngineHandlerOptions = {}): Handlers {
  const session = options.session ?? new EngineSession();
  return {
    ping: async () => ({ protocolVersion: PROTOCOL_VERSION, now: Date.now() }),
    inspectCheckpoint: ({ dir }) =>
      withCheckpointDirs([dir], async ([checkpoint]) => ({ summary: checkpointSummary(checkpoint), tensors: tensorRows(checkpoint) })),
    listDirectories: listDirectoriesHandler(session, options.dataDir ?? null),
    openPair: openPairHandler(session, options.dataDir ?? null),
    ...projectHandlers(session),
    listBuiltinPairs: builtinPairsHandler(options.dataDir ?? null),
    analyze: analyzeHandler(session),
    openReferenceRun: referenceRunHandler(session),
    getGateMetrics: gateMetricsHandler(session),
    getExpertMetrics: expertMetricsHandler(session),
    getPassMetrics: passMetricsHandler(session),
    getBlockPasses: blockPassesHandler(session),
    preview: previewHandler(session),
    spectrum: spectrumHandler(session),
    inspectLayer: inspectLayerHandler(session),
    verify: verifyHandler(session),
    export: exportHandler(session),
  };
}
