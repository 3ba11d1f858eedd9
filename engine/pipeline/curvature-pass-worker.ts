/**
 * A curvature worker thread (started by curvature-workers.ts): its own backend (the caller's,
 * with the caller's memory budget), its own handle on the Instruct checkpoint, the sealed Δ
 * store read-only and the Thinking checkpoint when its start data has them (for an anchor's edit,
 * and for the Δ over every row its directional passes form by rows: rowwise-deltas.ts), and one pass at a
 * time — directional, at θ_I or at the weights a probe's steps move (DirectionalGradients.moved),
 * or an anchor's forward at the default edit (curvature-anchors.ts) — posted back as
 * { loss, sequenceLosses, dots }. For a tied head it reads chunks of θ_I's shared embedding
 * (shared-weights.ts) until none is left to claim (shared-read-claims.ts) before it reports
 * ready, and its directional passes read the head from there; an untied lm_head is read by its
 * passes a chunk at a time (model/head.ts onDemand).
 */
import { workerData } from 'node:worker_threads';
import { editDirectionsOf, type DirectionRecipe } from '../crane/edit-directions.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { setMemoryBudget } from '../model/memory-plan.ts';
import type { WeightSource } from '../model/weights.ts';
import { initBackend } from '../tensor/backend.ts';
import { anchorPass } from './curvature-anchors.ts';
import type { CurvatureWorkerStart, FromCurvatureWorker, ToCurvatureWorker } from './curvature-workers.ts';
import { SealedDirections } from './direction-deltas.ts';
import { DirectionalGradients, type DirectionalPass } from './directional-gradients.ts';
import { fillClaimedParts } from './shared-read-claims.ts';
import { withSharedTensors } from './shared-weights.ts';
import { workerJobs } from './worker-jobs.ts';

const jobs = workerJobs<FromCurvatureWorker>('curvature-pass-worker.ts', 'curvature-workers.ts');
const setup = workerData as CurvatureWorkerStart;

interface Opened {
  readonly instruct: Checkpoint;
  /** θ_I with a tied head read from the shared tensors: what directional passes read. */
  readonly shared: WeightSource;
  readonly along?: DirectionalGradients;
  readonly thinking?: Checkpoint;
}

async function start(): Promise<Opened> {
  const { directions, anchors } = setup;
  const openInstruct = async (): Promise<Checkpoint> => {
    const checkpoint = await Checkpoint.open(setup.instruct);
    await fillClaimedParts(checkpoint, setup.shared, setup.claims);
    return checkpoint;
  };
  const thinkingDir = anchors?.thinking ?? directions?.thinking;
  const [instruct, thinking] = await Promise.all([openInstruct(), thinkingDir === undefined ? undefined : Checkpoint.open(thinkingDir), initBackend(setup.backend)]);
  // thinking is open whenever directions are given (thinkingDir)
  const rowwise = (recipe: DirectionRecipe) => ({ pair: { instruct, thinking: thinking as Checkpoint }, basis: editDirectionsOf(recipe) });
  const deltas = directions === undefined ? undefined : await SealedDirections.open(directions.sealed, directions.size, directions.directionCount, rowwise(directions.recipe));
  setMemoryBudget(setup.memoryBudget);
  const shared = withSharedTensors(instruct, setup.shared);
  const along = deltas === undefined ? undefined : new DirectionalGradients(shared, deltas);
  return { instruct, shared, ...(along === undefined ? {} : { along }), ...(thinking === undefined ? {} : { thinking }) };
}

async function run(message: ToCurvatureWorker): Promise<DirectionalPass> {
  const { instruct, shared, along, thinking } = await ready;
  if (message.type === 'anchor') {
    if (thinking === undefined || setup.anchors === undefined) throw new Error('internal: an anchor sent to a curvature worker started without the anchors\' data');
    return anchorPass(instruct, thinking, setup.anchors.edit, message.alpha, message.sequences, setup.batchSize, undefined);
  }
  if (along === undefined) throw new Error('internal: a directional pass sent to a curvature worker started without the sealed Δ');
  const weights = message.steps === null ? shared : along.moved(message.steps, undefined);
  return along.pass(weights, message.sequences, setup.batchSize, undefined);
}

const ready = start();
ready.then(() => jobs.post({ type: 'ready' }), jobs.fail);
jobs.serve<ToCurvatureWorker>(async (message) => {
  const pass = await run(message);
  return { message: { type: 'passed', pass }, transfer: [pass.dots.buffer as ArrayBuffer] };
});
