/**
 * The gates stage's layers scored on worker threads (gates-worker.ts), handed back in layer order.
 *
 *   gatesWorkerCount(ctx, layers) → threads to use (1: score in the calling thread)
 *   await scoreLayersOnWorkers(setup, layers, workers, onLayer, signal?)
 *
 * Each worker scores one whole layer at a time (its own reads of g_R, g_A, θ_I and θ_T, its own
 * kernels) and takes the next unscored layer when it posts one; the results wait until every
 * earlier layer is merged, so onLayer sees layers 0, 1, 2, … exactly as the single-thread loop
 * does and the gate table and coefficients are bit-identical for any worker count. While one
 * thread waits on its reads the other computes. A worker holds one layer's gradients and two
 * tensor-sized arrays; at most one finished layer per worker waits to be merged.
 */
import { availableParallelism } from 'node:os';
import type { GspProjector } from '../crane/gsp-projector.ts';
import { numel } from '../io/safetensors-header.ts';
import { BackendError } from '../tensor/backend.ts';
import type { ScoredLayer } from './gates-layer.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { faultText, JobQueue, WorkerGroup } from './worker-group.ts';

/** A gates worker failed or died; the message names the worker (the CLI reports it as an engine error, not a crash). */
export class GatesWorkerError extends BackendError {
  override readonly name = 'GatesWorkerError';
}

export interface GatesWorkerData {
  readonly instruct: string;
  readonly thinking: string;
  /** The two gradient store folders. */
  readonly reasoning: string;
  readonly agent: string;
  readonly keepQuantile: number;
  readonly projectors: readonly (readonly [string, GspProjector])[];
}

export interface ToGatesWorker {
  readonly type: 'layer';
  readonly layer: number;
}

export type FromGatesWorker = { readonly type: 'scored'; readonly scored: ScoredLayer } | { readonly type: 'failed'; readonly message: string };

/**
 * Scoring parameters below this stays in the calling thread: a worker takes a second or two to
 * start (its module graph through tsx), about what scoring 20 M parameters takes on one core.
 */
const MIN_PARALLEL_PARAMETERS = 20_000_000;

const WORKER = new URL('./gates-worker.ts', import.meta.url);

/** settings.workers when given (the same --workers as the gradients), else the cores for a model worth it. */
export function gatesWorkerCount(ctx: PipelineContext, layers: number): number {
  const parameters = [...ctx.instruct.tensors.values()].reduce((sum, t) => sum + numel(t.shape), 0);
  const wanted = ctx.settings.workers ?? (parameters < MIN_PARALLEL_PARAMETERS ? 1 : availableParallelism());
  return Math.max(1, Math.min(wanted, layers));
}

export function scoreLayersOnWorkers(
  setup: GatesWorkerData, layers: number, workers: number, onLayer: (scored: ScoredLayer) => void, signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const finished = new Map<number, ScoredLayer>();
    let merged = 0;
    const group = new WorkerGroup({
      abort: { signal, stage: 'gates' },
      onEnd: (failure) => (failure === undefined ? resolve() : reject(failure)),
    });
    const mergeReady = (): void => {
      for (let scored = finished.get(merged); scored !== undefined; scored = finished.get(merged)) {
        finished.delete(merged++);
        onLayer(scored);
      }
    };
    const queue = new JobQueue(Array.from({ length: layers }, (_, layer) => layer), group);
    for (let id = 1; id <= Math.min(workers, layers); id++) {
      const dispatch = (): void => {
        const next = queue.take();
        if (next !== undefined) worker.postMessage({ type: 'layer', layer: next.job } satisfies ToGatesWorker);
      };
      const worker = group.start<FromGatesWorker>({
        module: WORKER,
        workerData: setup,
        // the message a worker posts when it fails already says what failed (the file it could not read)
        fault: (fault) => new GatesWorkerError(fault.kind === 'failed' ? `gates worker ${id}: ${fault.message}` : faultText(`gates worker ${id}`, fault, 'before its layers were scored')),
        onMessage: (message) => {
          finished.set(message.scored.layer, message.scored);
          dispatch();
          mergeReady();
          queue.done();
        },
      });
      dispatch();
    }
  });
}
