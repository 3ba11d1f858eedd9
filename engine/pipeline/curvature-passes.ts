/**
 * The curvature stage's passes: per calibration set one backward at θ_I (`base`) and one per
 * probe (curvature-probes.ts), each a DirectionalGradients.pass, and one forward per anchor α
 * over both sets' sequences at the default edit (curvature-anchors.ts).
 *
 *   await curvaturePasses(ctx, plan, onDone) → results keyed by name ("reasoning:base", "agent:probe1", "anchor:0.25", …)
 *
 * The passes are independent, so with more than one worker (curvatureWorkerCount:
 * settings.workers, else the cores the memory fits) every Δ is computed first, on this thread
 * and a Δ worker (ComputedDeltas.computeAll; only when a directional pass is left to make), the
 * store sealed, and all of them run on worker threads (curvature-workers.ts), the costliest
 * first, so the anchors overlap the backward passes instead of following them on one thread;
 * with one worker, or when the store cannot be sealed (Δ beyond its budgets), they run here one
 * after another, the anchors last, Δ computed as the first pass meets them. Either way a pass's
 * result is the same bits.
 * Resumable: each finished pass, anchors included, is kept in passes.json as it ends (in either
 * order); a rerun with the same key runs only the passes not kept. A base pass kept without its
 * sequence losses (a log from before the anchors used them) is run again.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { DirectionBasis } from '../crane/edit-directions.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';
import { readJsonFile } from '../io/json-file.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { memoryBudget } from '../model/memory-plan.ts';
import { EMBED_NAME } from '../model/weights.ts';
import { requireActiveBackend } from '../tensor/backend.ts';
import { anchorPass, type AnchorEdit } from './curvature-anchors.ts';
import type { CurvatureProbe } from './curvature-probes.ts';
import { curvatureWorkerCount, runPassesOnWorkers, type CurvatureJob, type CurvatureWorkerData } from './curvature-workers.ts';
import { DeltaStore } from './delta-store.ts';
import { ComputedDeltas } from './direction-deltas.ts';
import { DirectionalGradients, type DirectionalPass } from './directional-gradients.ts';
import { rowwiseRecipe } from './rowwise-deltas.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { allocateSharedTensors } from './shared-weights.ts';

export const CALIBRATION_SETS = ['reasoning', 'agent'] as const;
export type CalibrationSet = (typeof CALIBRATION_SETS)[number];

export interface PassesPlan {
  readonly basis: DirectionBasis;
  /** curvatureProbes' plan: dense (probe j moves direction j) or sketched. */
  readonly dense: boolean;
  readonly probes: readonly CurvatureProbe[];
  readonly batches: Record<CalibrationSet, readonly LossSequence[]>;
  /** Routers whose θ_I/θ_T dots ride along (direction-deltas.ts). */
  readonly routers: readonly string[];
  /** The anchor α and what their edit is made from. */
  readonly anchors: { readonly alphas: readonly number[]; readonly edit: AnchorEdit };
}

/** One pass to make: `label` is what progress says once it is done, `weight` its share of the stage's progress. */
type StageJob = CurvatureJob & { readonly label: string; readonly weight: number };

const PASSES_FILE = 'passes.json';
/** Δ_b beyond what memory keeps, for the passes' dots (delta-store.ts); deleted when the passes are done. */
const DELTA_SCRATCH_FILE = 'deltas.scratch';
/** A forward costs about a third of a forward + backward: an anchor's weight in progress and in the workers' order. */
export const FORWARD_SHARE = 1 / 3;

export function anchorName(alpha: number): string {
  return `anchor:${alpha}`;
}

export async function curvaturePasses(ctx: PipelineContext, plan: PassesPlan, onDone: (label: string, weight: number) => void): Promise<ReadonlyMap<string, DirectionalPass>> {
  const { signal } = ctx.callbacks;
  const log = await PassLog.open(join(ctx.paths.curvature, PASSES_FILE));
  const results = new Map<string, DirectionalPass>();
  const todo: StageJob[] = [];
  for (const job of stageJobs(plan)) {
    const kept = log.kept(job.name, job.kind === 'anchor' || job.steps === undefined);
    if (kept === undefined) todo.push(job);
    else {
      results.set(job.name, kept);
      onDone(job.label, job.weight);
    }
  }
  if (todo.length === 0) return results;
  const finished = async (job: StageJob, pass: DirectionalPass): Promise<void> => {
    await log.record(job.name, pass);
    results.set(job.name, pass);
    onDone(job.label, job.weight);
  };
  const store = await DeltaStore.open(join(ctx.paths.curvature, DELTA_SCRATCH_FILE));
  try {
    const deltas = new ComputedDeltas(ctx.instruct, ctx.thinking, plan.basis, store, plan.routers);
    const backward = todo.some((job) => job.kind === 'pass');
    const workers = curvatureWorkerCount(ctx, Object.values(plan.batches), todo.length);
    if (workers > 1) {
      if (backward) await deltas.computeAll(signal);
      const sealed = backward ? await store.seal() : undefined;
      if (!backward || sealed !== undefined) {
        ctx.callbacks.onLog?.(`curvature: ${todo.length} passes on ${workers} worker threads`);
        const setup: CurvatureWorkerData = {
          instruct: ctx.instruct.dir, backend: requireActiveBackend('running the curvature stage'), memoryBudget: memoryBudget(), batchSize: ctx.settings.batchSequences,
          // a tied head (the embedding, which the head reads whole): one copy for every worker; an untied lm_head is read a chunk at a time (model/head.ts onDemand)
          shared: allocateSharedTensors(ctx.instruct, loadCausalLM(ctx.instruct).spec.tiedEmbeddings ? [EMBED_NAME] : []),
          ...(sealed === undefined ? {} : { directions: { sealed, size: deltas.size, directionCount: plan.basis.directions.length, thinking: ctx.thinking.dir, recipe: rowwiseRecipe(plan.basis.recipe) } }),
          ...(todo.some((job) => job.kind === 'anchor') ? { anchors: { thinking: ctx.thinking.dir, edit: plan.anchors.edit } } : {}),
        };
        // costliest first: the other worker takes the cheap passes meanwhile
        const costliestFirst = [...todo].sort((a, b) => cost(b) - cost(a));
        await runPassesOnWorkers(setup, costliestFirst, workers, (job, pass) => finished(job as StageJob, pass), signal);
        return results;
      }
    }
    if (backward) await deltas.prepare(signal);
    const along = new DirectionalGradients(ctx.instruct, deltas);
    for (const job of todo) {
      if (job.kind === 'anchor') {
        await finished(job, await anchorPass(ctx.instruct, ctx.thinking, plan.anchors.edit, job.alpha, job.sequences, ctx.settings.batchSequences, signal));
        continue;
      }
      const weights = job.steps === undefined ? ctx.instruct : along.moved(job.steps, signal);
      await finished(job, await along.pass(weights, job.sequences, ctx.settings.batchSequences, signal));
    }
    return results;
  } finally {
    await store.close();
  }
}

/** Per set: the base pass, then each probe's, in the order the single-thread stage always made them; then the anchors over both sets. */
function stageJobs(plan: PassesPlan): StageJob[] {
  const passes = CALIBRATION_SETS.flatMap((set): StageJob[] => {
    const loss = set === 'reasoning' ? 'R' : 'A';
    const sequences = plan.batches[set];
    return [
      { kind: 'pass', name: `${set}:base`, sequences, label: `g_${loss}·Δ at θ_I`, weight: 1 },
      ...plan.probes.map((probe, j): StageJob => ({
        kind: 'pass', name: `${set}:${probe.name}`, steps: probe.steps, sequences, weight: 1,
        label: `H_${loss}·Δ ${j + 1}/${plan.probes.length}${plan.dense ? ` (${plan.basis.directions[j]?.key ?? ''})` : ''}`,
      })),
    ];
  });
  const both = CALIBRATION_SETS.flatMap((set) => plan.batches[set]);
  const anchors = plan.anchors.alphas.map((alpha): StageJob => ({
    kind: 'anchor', name: anchorName(alpha), alpha, sequences: both, label: `measured the default edit at α ${alpha}`, weight: CALIBRATION_SETS.length * FORWARD_SHARE,
  }));
  return [...passes, ...anchors];
}

/** Tokens through the model, a backward counted as two forwards. */
function cost(job: StageJob): number {
  const tokens = job.sequences.reduce((sum, s) => sum + s.ids.length, 0);
  return job.kind === 'anchor' ? tokens : tokens / FORWARD_SHARE;
}

// sequenceLosses: absent from logs written before the anchors took θ_I's losses from the base passes.
const passesSchema = z.record(z.string(), z.strictObject({ loss: z.number(), sequenceLosses: z.array(z.number()).optional(), dots: z.array(z.number()) }));
type LoggedPass = z.infer<typeof passesSchema>[string];

/** Finished passes on disk, so a cancelled stage resumes after the last one. Records are written one at a time. */
class PassLog {
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string, private readonly passes: Record<string, LoggedPass>) {}

  static async open(path: string): Promise<PassLog> {
    return new PassLog(path, (await readJsonFile(path, passesSchema, 'a curvature pass log')) ?? {});
  }

  /** The logged pass; `needsLosses`: one logged without its sequence losses counts as not made. */
  kept(name: string, needsLosses: boolean): DirectionalPass | undefined {
    const kept = this.passes[name];
    if (kept === undefined || (needsLosses && kept.sequenceLosses === undefined)) return undefined;
    return { loss: kept.loss, sequenceLosses: kept.sequenceLosses ?? [], dots: Float64Array.from(kept.dots) };
  }

  record(name: string, pass: DirectionalPass): Promise<void> {
    this.passes[name] = { loss: pass.loss, sequenceLosses: [...pass.sequenceLosses], dots: Array.from(pass.dots) };
    this.writing = this.writing.then(() => writeFileAtomic(this.path, JSON.stringify(this.passes)));
    return this.writing;
  }
}
