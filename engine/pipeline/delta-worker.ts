/**
 * The Δ worker thread (started by delta-threads.ts): its own handles on both checkpoints, the
 * basis rebuilt from its recipe, and one tensor at a time computed by tensorDeltas and posted
 * back with its arrays transferred (a Δ over every row left out, as computeAll's own: the
 * curvature passes form it by rows, rowwise-deltas.ts).
 */
import { workerData } from 'node:worker_threads';
import { editDirectionsOf } from '../crane/edit-directions.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import type { DeltaWorkerData, FromDeltaWorker, ToDeltaWorker } from './delta-threads.ts';
import { PairReads, routerSlots, tensorDeltas } from './tensor-deltas.ts';
import { workerJobs } from './worker-jobs.ts';

const jobs = workerJobs<FromDeltaWorker>('delta-worker.ts', 'delta-threads.ts');
const setup = workerData as DeltaWorkerData;
const basis = editDirectionsOf(setup.recipe);
const slots = routerSlots(basis.directions.length, setup.routers);
const pair = Promise.all([Checkpoint.open(setup.instruct), Checkpoint.open(setup.thinking)]).then(([instruct, thinking]) => ({ instruct, thinking }));

const reads = new PairReads(); // one tensor at a time: jobs are served one at a time
jobs.serve<ToDeltaWorker>(async ({ name }) => {
  const deltas = await tensorDeltas(await pair, basis, name, { routerSlot: slots.get(name), reads, rowwise: true });
  // transferred, not copied: every array here is this worker's own (the filter only narrows ArrayBufferLike)
  const buffers = new Set(deltas.flatMap((d) => [d.values.buffer, ...(d.rows === undefined ? [] : [d.rows.buffer])]).filter((b) => b instanceof ArrayBuffer));
  return { message: { type: 'deltas', name, deltas }, transfer: [...buffers] };
});
