/**
 * The curvature stage's passes on worker threads (curvature-pass-worker.ts): each pass — a
 * directional one, one set at θ_I or at one probe's moved weights, or an anchor's forward at
 * the default edit (curvature-anchors.ts) — whole on one thread, as many at once as there are
 * threads.
 *
 *   curvatureWorkerCount(ctx, batches, passes) → threads (1: the passes run in the calling thread)
 *   await runPassesOnWorkers(setup, jobs, workers, onPass, signal?)
 *
 * A worker opens the Instruct checkpoint, the sealed Δ store (delta-store.ts) read-only and the
 * Thinking checkpoint when there are directional passes (an untied lm_head's blend Δ is formed by
 * rows from both: rowwise-deltas.ts), the Thinking checkpoint when there are anchors (their edit's
 * gate table and projectors come with its start data), and runs DirectionalGradients.pass or
 * anchorPass exactly as the calling thread would, on the same backend with the same memory
 * budget, so a pass's losses and dots are bit-identical whichever thread ran it.
 * Every worker starts at once and, for a tied head, reads chunks of θ_I's shared float32 embedding
 * (shared-weights.ts; an untied lm_head is not shared: each worker reads it by chunks on demand)
 * until none is left to claim, as the gradient workers do (shared-read-claims.ts); jobs go out
 * once all are ready, in list order to whichever worker is free; each result goes to onPass as it arrives (the stage
 * logs it, so a cancelled stage resumes per pass). The first failure — a worker's error, a
 * worker that dies, onPass throwing, or the signal (CancelledError) — terminates every worker
 * and rejects, a worker's as a CurvatureWorkerError naming the pass.
 *
 * Memory: an untied lm_head is read a chunk at a time, a block of rows at a time, straight into
 * the chunk's upload (model/head.ts onDemand) — θ_I's, a probe's moved one and an anchor's edit
 * alike, each row formed as it is read — so no thread holds a vocab-sized head; nor its blend's Δ,
 * formed a block of rows at a time where a pass reads it (the head's dots, a probe's moved rows:
 * rowwise-deltas.ts). The embedding is looked up by rows, never read whole
 * (model/embedding-rows.ts, in a probe's moved weights and an anchor's edit too). A tied head (the
 * embedding) is read whole: held once for all workers in shared memory, copied by a pass whose
 * probe moves it or an anchor that edits it; it has no blend Δ (the embedding's Δ is its think
 * rows). The estimate charges, on top of a gradient worker's, the shared tied head once and one
 * vocab × hidden copy per worker; for an untied lm_head, per worker, the arrays of one rowwise
 * block (θ_I's and θ_T's rows, which become the Δ) and the kernel's output sums.
 */
import type { DirectionRecipe } from '../crane/edit-directions.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { planMemory } from '../model/memory-plan.ts';
import { ROW_BLOCK_VALUES } from '../model/row-block-upload.ts';
import { BackendError, type BackendName } from '../tensor/backend.ts';
import type { AnchorEdit } from './curvature-anchors.ts';
import type { SealedDeltas } from './delta-store.ts';
import type { DirectionalPass } from './directional-gradients.ts';
import type { SharedTensor } from './gradient-worker-protocol.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { CancelledError } from './progress.ts';
import { sharedReadClaims, type SharedReadClaims } from './shared-read-claims.ts';
import { defaultWorkerCount, gradientWorkerBytes, gradientWorkShape, machineResources, type MachineResources } from './worker-count.ts';
import { faultText, JobQueue, WorkerGroup } from './worker-group.ts';

/** A curvature worker failed or died; the message names the worker and its pass. */
export class CurvatureWorkerError extends BackendError {
  override readonly name = 'CurvatureWorkerError';
}

export interface CurvatureWorkerData {
  readonly instruct: string;
  readonly backend: BackendName;
  readonly memoryBudget: number;
  readonly batchSize: number;
  /**
   * For directional passes: the sealed Δ, the length of dots and B (the directions' share of it),
   * and what a Δ over every row (an untied lm_head's blend) is formed by rows from: the Thinking
   * checkpoint and the basis's rowwise recipe (rowwise-deltas.ts).
   */
  readonly directions?: { readonly sealed: SealedDeltas; readonly size: number; readonly directionCount: number; readonly thinking: string; readonly recipe: DirectionRecipe };
  /** For anchors: the Thinking checkpoint and what the edit is made from. */
  readonly anchors?: { readonly thinking: string; readonly edit: AnchorEdit };
  /** θ_I's float32 tied embedding, for a tied head (shared-weights.ts allocateSharedTensors), read by the workers in parts; none for an untied lm_head. */
  readonly shared: readonly SharedTensor[];
}

/** What one worker starts with: the common data and the claims through which the workers share the shared tensors' read. */
export interface CurvatureWorkerStart extends CurvatureWorkerData {
  readonly claims: SharedReadClaims;
}

/**
 * One pass. `pass`: a set's sequences at θ_I (no steps) or at θ_I + Σ steps[b]·Δ_b; `anchor`:
 * both sets' sequences at the default edit with this α.
 */
export type CurvatureJob =
  | { readonly kind: 'pass'; readonly name: string; readonly steps?: Float64Array; readonly sequences: readonly LossSequence[] }
  | { readonly kind: 'anchor'; readonly name: string; readonly alpha: number; readonly sequences: readonly LossSequence[] };

export type ToCurvatureWorker =
  | { readonly type: 'pass'; readonly steps: Float64Array | null; readonly sequences: readonly LossSequence[] }
  | { readonly type: 'anchor'; readonly alpha: number; readonly sequences: readonly LossSequence[] };
export type FromCurvatureWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'passed'; readonly pass: DirectionalPass }
  | { readonly type: 'failed'; readonly message: string };

const WORKER = new URL('./curvature-pass-worker.ts', import.meta.url);
const FLOAT_BYTES = 4;

/** settings.workers when given, else the cores that the passes' memory fits (1 for small work); never more than the passes. */
export function curvatureWorkerCount(ctx: Pick<PipelineContext, 'instruct' | 'settings'>, batches: readonly (readonly LossSequence[])[], passes: number, machine: MachineResources = machineResources()): number {
  return Math.max(1, Math.min(ctx.settings.workers ?? defaultCurvatureWorkers(ctx, batches, machine), passes));
}

function defaultCurvatureWorkers(ctx: Pick<PipelineContext, 'instruct'>, batches: readonly (readonly LossSequence[])[], machine: MachineResources): number {
  const shape = gradientWorkShape(ctx.instruct, batches);
  const vocabBytes = shape.vocab * shape.hidden * FLOAT_BYTES;
  const tied = loadCausalLM(ctx.instruct).spec.tiedEmbeddings;
  // beyond a gradient worker: a tied head's copy, moved by a probe or edited by an anchor; for an untied one (read by chunks)
  // the blend Δ's block of rows as it is formed (θ_I's and θ_T's rows, the Δ written into θ_T's) and the head dots' output sums
  const passBytes = gradientWorkerBytes(shape) + (tied ? vocabBytes : rowwiseBlockBytes(shape.hidden));
  // held once for every worker: a tied head (whose only Δ, the embedding's think rows, is row-sparse); nothing untied
  const shared = tied ? vocabBytes : 0;
  // defaultWorkerCount: the machine's cores (1 for small work), capped by a gradient worker's memory; a pass needs more
  return Math.min(defaultWorkerCount(shape, machine), Math.max(1, Math.floor((machine.freeBytes - shared) / passBytes)));
}

/** A rowwise Δ's block (rowwise-deltas.ts: θ_I's and θ_T's rows, ROW_BLOCK_VALUES each) and WeightedRowSums' [HEAD_ROWS, hidden] sums. */
function rowwiseBlockBytes(hidden: number): number {
  return (2 * ROW_BLOCK_VALUES + planMemory({ hiddenSize: hidden, vocabSize: 1 }).headRows * hidden) * FLOAT_BYTES;
}

export function runPassesOnWorkers(
  setup: CurvatureWorkerData, jobs: readonly CurvatureJob[], workers: number, onPass: (job: CurvatureJob, pass: DirectionalPass) => Promise<void>, signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) return reject(new CancelledError('curvature'));
    if (jobs.length === 0) return resolve();
    // Settled once every thread has stopped (what follows gets their memory back) and every result is logged.
    const group: WorkerGroup = new WorkerGroup({
      abort: { signal, stage: 'curvature' },
      onEnd: (failure) => void Promise.allSettled([group.settled(), group.finish()]).then(() => (failure === undefined ? resolve() : reject(failure))),
    });
    const queue = new JobQueue(jobs, group);
    const count = Math.min(workers, jobs.length);
    const claims = sharedReadClaims();
    const waiting: (() => void)[] = [];
    for (let id = 1; id <= count; id++) {
      let job: CurvatureJob | undefined;
      const name = (): string => `curvature worker ${id}${job === undefined ? '' : ` on pass ${job.name}`}`;
      const worker = group.start<FromCurvatureWorker>({
        module: WORKER,
        workerData: { ...setup, claims } satisfies CurvatureWorkerStart,
        fault: (fault) => new CurvatureWorkerError(faultText(name(), fault, 'before its pass was done')),
        onMessage: (message) => {
          if (message.type === 'ready') {
            // each worker needs every chunk of the shared tensors: start when the last has read its last
            waiting.push(dispatch);
            if (waiting.length === count) for (const begin of waiting) begin();
            return;
          }
          group.track(onPass(job as CurvatureJob, message.pass).then(() => queue.done()));
          dispatch();
        },
      });
      const dispatch = (): void => {
        job = queue.take()?.job;
        if (job !== undefined) worker.postMessage(jobMessage(job));
      };
    }
  });
}

function jobMessage(job: CurvatureJob): ToCurvatureWorker {
  return job.kind === 'anchor' ? { type: 'anchor', alpha: job.alpha, sequences: job.sequences } : { type: 'pass', steps: job.steps ?? null, sequences: job.sequences };
}
