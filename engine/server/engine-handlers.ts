/**
 * The handler map `crane serve` (and later the Electron engine process) dispatches to. Methods
 * whose engine parts are not built yet answer 'not-implemented', so the UI can be built against
 * the whole contract now.
 */
import { Checkpoint } from '../io/checkpoint.ts';
import { comparePair } from '../io/pair-report.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Handlers } from '../protocol/handlers.ts';
import { PROTOCOL_VERSION } from '../protocol/methods.ts';
import { checkpointSummary, pairReportView, tensorRows, toProtocolError } from './checkpoint-views.ts';
import { validatePath } from './path-validator.ts';

export function createEngineHandlers(): Handlers {
  return {
    ping: async () => ({ protocolVersion: PROTOCOL_VERSION, now: Date.now() }),
    inspectCheckpoint: ({ dir }) =>
      withCheckpoints([dir], async ([checkpoint]) => ({ summary: checkpointSummary(checkpoint), tensors: tensorRows(checkpoint) })),
    openPair: ({ instruct, thinking }) =>
      withCheckpoints([instruct, thinking], async ([a, b]) => ({
        instruct: checkpointSummary(a),
        thinking: checkpointSummary(b),
        report: pairReportView(await comparePair(a, b)),
      })),
    // No project can be opened yet, so none is open.
    getProjectState: async () => null,
    openProject: notImplemented('projects'),
    saveProject: notImplemented('projects'),
    analyze: notImplemented('analysis'),
    getGateMetrics: notImplemented('analysis'),
    preview: notImplemented('the preview'),
    spectrum: notImplemented('GSP spectra'),
    inspectLayer: notImplemented('layer inspection'),
    verify: notImplemented('verify'),
    export: notImplemented('export of edited checkpoints'),
  };
}

/** Opens validated checkpoint folders for the body and always closes them. */
async function withCheckpoints<T>(dirs: readonly string[], body: (checkpoints: [Checkpoint, Checkpoint]) => Promise<T>): Promise<T> {
  const checkpoints: Checkpoint[] = [];
  try {
    for (const dir of dirs) checkpoints.push(await Checkpoint.open(await validatePath(dir, 'directory')));
    return await body(checkpoints as [Checkpoint, Checkpoint]);
  } catch (error) {
    throw toProtocolError(error);
  } finally {
    await Promise.all(checkpoints.map((c) => c.close()));
  }
}

function notImplemented(what: string) {
  return () => Promise.reject(new ProtocolError('not-implemented', `${what}: not built yet in this engine`));
}
