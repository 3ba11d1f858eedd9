/**
 * Stage `gradients`: g_R and g_A at θ = θ_I, per decoder-layer parameter, on the train split.
 *
 *   gradientsKey(ctx, targetsKey) → StageKey
 *   runGradients(ctx, clock)  → stages/gradients/{reasoning,agent}/ (gradient-store.ts)
 *   openGradients(ctx) → { reasoning, agent } stores, for the gates stage
 *
 * g_K = (1/N) Σ_i ∇L_K(x_i), L_K(x_i) the mean CE over sequence i's target tokens: the runtime
 * divides by sequenceCount = N, so the batches' gradients simply add up in the store.
 *
 * Data-parallel: every batch of one set is a job — consecutive sequences, at most batchSequences
 * of them and at most 1/BALANCE_PARTS of all tokens (gradient-batches.ts), so a small calibration
 * still gives every worker its share — handed out longest first (each set's in batch order);
 * with more than one worker (settings.workers, default worker-count.ts) the jobs run on worker
 * threads, each with its own backend (gradient-worker-pool.ts), else in this thread. A batch's
 * sum is always one model pass in sequence order, and OrderedGradientFold adds the batches in
 * batch order; the split depends on the sequences and settings only (both knobs are in the key),
 * so the stored sums are bit-identical for any worker count. A looped model's layer maps also carry
 * each pass's part (keepPassParts), for the per-pass analysis. Resumes at each set's first uncommitted
 * batch; a cancel or a failed worker loses only the batches in flight.
 */
import { join } from 'node:path';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { passCount } from '../model/loop-config.ts';
import { memoryBudget } from '../model/memory-plan.ts';
import { EMBED_NAME } from '../model/weights.ts';
import { requireActiveBackend } from '../tensor/backend.ts';
import { lossBatch, readSequences } from './calibration-sequences.ts';
import { batchTokenCap, batchTokens, longestFirst, splitIntoBatches } from './gradient-batches.ts';
import { OrderedGradientFold } from './gradient-fold.ts';
import { keepPassParts } from './pass-gradients.ts';
import { GradientStore } from './gradient-store.ts';
import { runJobsOnWorkers, type GradientJob, type JobSink } from './gradient-worker-pool.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';
import { allocateSharedTensors, fillSharedPart, withSharedTensors } from './shared-weights.ts';
import type { StageKey } from './stage-store.ts';
import { gradientSplit } from './stage-keys.ts';
import { defaultGradientWorkers } from './worker-count.ts';
import { describeTimes } from './worker-timeline.ts';

const SETS = ['reasoning', 'agent'] as const;

/**
 * The split into batches decides the sums' rounding, so its knobs are in the key (another --batch
 * recomputes). A looped model's layer files also hold each pass's part (pass-gradients.ts).
 */
export function gradientsKey(ctx: PipelineContext, targets: StageKey): StageKey {
  const looped = passCount(loadCausalLM(ctx.instruct).spec) > 1;
  return { targets, instruct: ctx.inputs.instruct, batches: gradientSplit(ctx.settings), ...(looped ? { passParts: 1 } : {}) };
}

export async function runGradients(ctx: PipelineContext, clock: StageClock): Promise<void> {
  const { jobs, stores, total, done } = await planJobs(ctx);
  let finished = done;
  const fold = new OrderedGradientFold(stores);
  const sink: JobSink = {
    onLayer: (job, layer, grads) => fold.addLayer(job.ref, layer, grads),
    onDone: async (job) => {
      await fold.commit(job.ref);
      clock.report(++finished / total, job.label);
    },
    abandon: () => fold.abandon(),
  };
  const workers = Math.min(ctx.settings.workers ?? defaultGradientWorkers(ctx.instruct, jobs.map((job) => job.sequences)), jobs.length);
  // A tied head (the embedding, which the head reads whole) read once for the stage: one copy for
  // all workers, and in this thread not read and widened again for every batch. An untied lm_head
  // is read a chunk at a time as the head uses it (model/head.ts onDemand), and an untied
  // embedding is looked up by rows (model/embedding-rows.ts): neither is shared.
  const shared = allocateSharedTensors(ctx.instruct, loadCausalLM(ctx.instruct).spec.tiedEmbeddings ? [EMBED_NAME] : []);
  if (workers > 1) {
    ctx.callbacks.onLog?.(`gradients: ${jobs.length} batches on ${workers} worker threads`);
    const backend = requireActiveBackend('running the gradients stage');
    const setup = { checkpointDir: ctx.instruct.dir, backend, memoryBudget: memoryBudget(), shared };
    const times = await runJobsOnWorkers(jobs, { setup, workers, sink, signal: ctx.callbacks.signal });
    ctx.callbacks.onLog?.(`gradients: ${describeTimes(times, ['batch', 'batches'])}`);
  } else if (jobs.length > 0) {
    await fillSharedPart(ctx.instruct, shared, { index: 0, count: 1 });
    await runJobsHere(ctx, loadCausalLM(withSharedTensors(ctx.instruct, shared)), jobs, sink);
  }
  throwIfCancelled(ctx.callbacks.signal, 'gradients');
}

/** Every batch of both sets not yet committed, longest first (each set's in batch order), and the open stores. */
async function planJobs(ctx: PipelineContext): Promise<{ jobs: GradientJob[]; stores: Map<string, GradientStore>; total: number; done: number }> {
  const sequences = await readSequences(ctx.paths.sequences);
  const sets = SETS.map((set) => ({ set, name: `g_${set === 'reasoning' ? 'R' : 'A'}`, train: lossBatch(sequences, set, 'train') }));
  const maxTokens = batchTokenCap(sets.map((s) => s.train));
  const perSet: GradientJob[][] = [];
  const stores = new Map<string, GradientStore>();
  let total = 0;
  let done = 0;
  for (const { set, name, train } of sets) {
    if (train.length === 0) throw new CalibrationError('dataset', ctx.settings.analysis.calibration[set], `has no training sequences for ${name} (all held out?)`);
    const store = await GradientStore.open(join(ctx.paths.gradients, set));
    stores.set(set, store);
    const batches = splitIntoBatches(train, ctx.settings.batchSequences, maxTokens);
    total += batches.length;
    done += store.batchesDone;
    perSet.push(batches.slice(store.batchesDone).map((batch, i) => {
      const b = store.batchesDone + i;
      return { ref: { set, batch: b }, sequences: batch, options: { sequenceCount: train.length }, label: `${name} batch ${b + 1}/${batches.length}` };
    }));
  }
  return { jobs: longestFirst(perSet, (job) => batchTokens(job.sequences)), stores, total, done };
}

/** One job after another in this thread, on the backend already active. */
async function runJobsHere(ctx: PipelineContext, model: CausalLM, jobs: readonly GradientJob[], sink: JobSink): Promise<void> {
  for (const job of jobs) {
    throwIfCancelled(ctx.callbacks.signal, 'gradients');
    await model.lossAndPassGrads(job.sequences, keepPassParts(passCount(model.spec), async (layer, grads) => {
      throwIfCancelled(ctx.callbacks.signal, 'gradients');
      await sink.onLayer(job, layer, grads);
    }), job.options);
    await sink.onDone(job);
  }
}

export async function openGradients(ctx: PipelineContext): Promise<{ reasoning: GradientStore; agent: GradientStore }> {
  return {
    reasoning: await GradientStore.open(join(ctx.paths.gradients, 'reasoning')),
    agent: await GradientStore.open(join(ctx.paths.gradients, 'agent')),
  };
}
