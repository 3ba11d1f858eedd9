/**
 * The curvature stage's backward passes: per calibration set one at θ_I (`base`) and one per
 * probe (curvature-probes.ts), each a DirectionalGradients.pass.
 *
 *   await directionalPasses(ctx, along, onPass) → results keyed "set:name" ("reasoning:base", "agent:probe1", …)
 *
 * The passes are independent, so with more than one worker (curvatureWorkerCount:
 * settings.workers, else the cores the memory fits) every Δ is computed first on this thread,
 * the store sealed, and the passes run on worker threads (curvature-workers.ts), the longest
 * set's first; with one worker, or when the store cannot be sealed (Δ beyond its budgets), they
 * run here one after another, Δ computed as the first pass meets them. Either way a pass's
 * result is the same bits.
 * Resumable: each finished pass is kept in passes.json as it ends (in either order); a rerun with
 * the same key runs only the passes not kept. A base pass kept without its sequence losses (a log
 * from before the anchors used them) is run again.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { DirectionBasis } from '../crane/edit-directions.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';
import { readJsonFile } from '../io/json-file.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { memoryBudget } from '../model/memory-plan.ts';
import { requireActiveBackend } from '../tensor/backend.ts';
import type { CurvatureProbe } from './curvature-probes.ts';
import { curvatureWorkerCount, runPassesOnWorkers, type CurvatureJob } from './curvature-workers.ts';
import { DeltaStore } from './delta-store.ts';
import { ComputedDeltas } from './direction-deltas.ts';
import { DirectionalGradients, type DirectionalPass } from './directional-gradients.ts';
import type { PipelineContext } from './pipeline-context.ts';

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
}

/** One pass to make: `label` is what progress says once it is done. */
interface PassJob extends CurvatureJob {
  readonly set: CalibrationSet;
  readonly label: string;
}

const PASSES_FILE = 'passes.json';
/** Δ_b beyond what memory keeps, for the passes' dots (delta-store.ts); deleted when the passes are done. */
const DELTA_SCRATCH_FILE = 'deltas.scratch';

export async function directionalPasses(ctx: PipelineContext, plan: PassesPlan, onPass: (label: string) => void): Promise<ReadonlyMap<string, DirectionalPass>> {
  const { signal } = ctx.callbacks;
  const log = await PassLog.open(join(ctx.paths.curvature, PASSES_FILE));
  const results = new Map<string, DirectionalPass>();
  const todo: PassJob[] = [];
  for (const job of passJobs(plan)) {
    const kept = log.kept(job.name, job.steps === undefined);
    if (kept === undefined) todo.push(job);
    else {
      results.set(job.name, kept);
      onPass(job.label);
    }
  }
  if (todo.length === 0) return results;
  const finished = async (job: PassJob, pass: DirectionalPass): Promise<void> => {
    await log.record(job.name, pass);
    results.set(job.name, pass);
    onPass(job.label);
  };
  const store = await DeltaStore.open(join(ctx.paths.curvature, DELTA_SCRATCH_FILE));
  try {
    const deltas = new ComputedDeltas(ctx.instruct, ctx.thinking, plan.basis, store, plan.routers);
    const workers = curvatureWorkerCount(ctx, Object.values(plan.batches), todo.length);
    if (workers > 1) {
      await deltas.computeAll(signal);
      const sealed = await store.seal();
      if (sealed !== undefined) {
        ctx.callbacks.onLog?.(`curvature: ${todo.length} passes on ${workers} worker threads`);
        const backend = requireActiveBackend('running the curvature stage');
        const setup = { instruct: ctx.instruct.dir, backend, memoryBudget: memoryBudget(), sealed, size: deltas.size, directionCount: plan.basis.directions.length, batchSize: ctx.settings.batchSequences };
        // longest first: the other worker takes the short passes meanwhile
        const longestFirst = [...todo].sort((a, b) => tokens(b.sequences) - tokens(a.sequences));
        await runPassesOnWorkers(setup, longestFirst, workers, (job, pass) => finished(job as PassJob, pass), signal);
        return results;
      }
    }
    await deltas.prepare(signal);
    const along = new DirectionalGradients(ctx.instruct, deltas);
    for (const job of todo) {
      const weights = job.steps === undefined ? ctx.instruct : along.moved(job.steps, signal);
      await finished(job, await along.pass(weights, job.sequences, ctx.settings.batchSequences, signal));
    }
    return results;
  } finally {
    await store.close();
  }
}

/** Per set: the base pass, then each probe's, in the order the single-thread stage always made them. */
function passJobs(plan: PassesPlan): PassJob[] {
  return CALIBRATION_SETS.flatMap((set) => {
    const loss = set === 'reasoning' ? 'R' : 'A';
    const sequences = plan.batches[set];
    return [
      { set, name: `${set}:base`, sequences, label: `g_${loss}·Δ at θ_I` },
      ...plan.probes.map((probe, j) => ({
        set, name: `${set}:${probe.name}`, steps: probe.steps, sequences,
        label: `H_${loss}·Δ ${j + 1}/${plan.probes.length}${plan.dense ? ` (${plan.basis.directions[j]?.key ?? ''})` : ''}`,
      })),
    ];
  });
}

function tokens(sequences: readonly LossSequence[]): number {
  return sequences.reduce((sum, s) => sum + s.ids.length, 0);
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
