/**
 * The worker thread of a forward lane (forward-lane.ts): its own backend (the caller's, with the
 * caller's memory budget) and checkpoint handle for the decoder layers (the embedding rows come
 * with the batch); each batch goes through forwardTapped with the
 * taps its readings describe (forward-requests.ts tapOf), and each layer's records are posted
 * as soon as the layer is done. Between batches it solves GSP keys it is sent (the projectors
 * stage's second core once the lane's part of the pass is done).
 */
import { workerData } from 'node:worker_threads';
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows } from '../crane/gsp-projector.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { setMemoryBudget } from '../model/memory-plan.ts';
import { allTaps, forwardTapped } from '../model/tapped-forward.ts';
import { initBackend } from '../tensor/backend.ts';
import type { FromLane, LaneRecord, LaneSetup, ToLane } from './forward-lane-protocol.ts';
import { tapOf } from './forward-requests.ts';
import { workerJobs, type Reply } from './worker-jobs.ts';

const jobs = workerJobs<FromLane>('forward-lane-worker.ts', 'forward-lane.ts');

async function start(setup: LaneSetup): Promise<CausalLM> {
  const [checkpoint] = await Promise.all([Checkpoint.open(setup.checkpointDir), initBackend(setup.backend)]);
  setMemoryBudget(setup.memoryBudget);
  return loadCausalLM(checkpoint);
}

async function runBatch(model: CausalLM, batch: Extract<ToLane, { type: 'batch' }>): Promise<Reply<FromLane>> {
  let records: LaneRecord[] = [];
  const sequences = batch.sequences.map((s, sequence) => ({
    ids: s.ids,
    embedded: s.embedded,
    tap: allTaps(s.reads.map((read, request) => tapOf(s.ids, read, (record) => void records.push({ sequence, request, record })))),
  }));
  await forwardTapped(model.context, sequences, {
    onLayerDone: (layer, pass) => {
      jobs.post({ type: 'layer', layer, pass, records });
      records = [];
    },
  });
  return { message: { type: 'done' } };
}

const model = start(workerData as LaneSetup);
model.then(() => jobs.post({ type: 'ready' }), jobs.fail);
/** projectorOfRows, here as on the calling thread: the same arrays in, the same bits out. */
function solve(message: Extract<ToLane, { type: 'solve' }>): Reply<FromLane> {
  const projector = projectorOfRows(GramAccumulator.fromSnapshot(message.gram), message.options) ?? null;
  return { message: { type: 'solved', projector }, transfer: projector === null ? [] : [projector.basis.buffer as ArrayBuffer, projector.sigma.buffer as ArrayBuffer] };
}

jobs.serve<ToLane>(async (message) => (message.type === 'batch' ? runBatch(await model, message) : solve(message)));
