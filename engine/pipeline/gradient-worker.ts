/**
 * A gradient worker thread (started by gradient-worker-pool.ts): its own tfjs backend, its own
 * handle on the Instruct checkpoint (decoder layers streamed from disk as in the main thread;
 * the head shared read-only, shared-weights.ts — this worker reads chunks of it until none
 * is left before it reports ready, shared-read-claims.ts), and one batch at a time through lossAndPassGrads (keepPassParts: the sum,
 * and a looped model's per-pass parts). Each layer's gradient sum is posted (buffers
 * transferred) as soon as it exists; a layer waits only while MAX_UNFOLDED_LAYERS posted layers
 * are not acked (folded) yet, so the backward pass overlaps the main thread's folding and a
 * fold that waits for another batch does not stop this worker at once.
 */
import { workerData } from 'node:worker_threads';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { passCount } from '../model/loop-config.ts';
import { setMemoryBudget } from '../model/memory-plan.ts';
import { initBackend } from '../tensor/backend.ts';
import { MAX_UNFOLDED_LAYERS, packLayer, type FromWorker, type GradientWorkerData, type ToWorker } from './gradient-worker-protocol.ts';
import { keepPassParts } from './pass-gradients.ts';
import { fillClaimedParts } from './shared-read-claims.ts';
import { withSharedTensors } from './shared-weights.ts';
import { workerJobs, type Reply } from './worker-jobs.ts';

const jobs = workerJobs<FromWorker>('gradient-worker.ts', 'gradient-worker-pool.ts');

let unfolded = 0;
let onAck: (() => void) | undefined;

async function start(setup: GradientWorkerData): Promise<CausalLM> {
  const open = async (): Promise<Checkpoint> => {
    const checkpoint = await Checkpoint.open(setup.checkpointDir);
    await fillClaimedParts(checkpoint, setup.shared, setup.claims);
    return checkpoint;
  };
  const [checkpoint] = await Promise.all([open(), initBackend(setup.backend)]);
  setMemoryBudget(setup.memoryBudget);
  return loadCausalLM(withSharedTensors(checkpoint, setup.shared));
}

async function roomForLayer(): Promise<void> {
  while (unfolded >= MAX_UNFOLDED_LAYERS) await new Promise<void>((resolve) => (onAck = resolve));
  unfolded++;
}

async function runUnit(model: CausalLM, request: ToWorker): Promise<Reply<FromWorker>> {
  if (request.type !== 'unit') throw new Error('internal: an ack reached the gradient worker\'s queue');
  const sequences = request.sequences.map((s) => ({ ids: s.ids, targets: s.targets }));
  await model.lossAndPassGrads(sequences, keepPassParts(passCount(model.spec), async (layer, grads) => {
    await roomForLayer();
    const { message, transfer } = packLayer(request.unit, layer, grads);
    jobs.post(message, transfer);
  }), request.options);
  return { message: { type: 'done', unit: request.unit } };
}

/** An ack is taken at once: the running unit may be waiting for it. */
function takeAck(message: ToWorker): boolean {
  if (message.type !== 'ack') return false;
  unfolded--;
  onAck?.();
  onAck = undefined;
  return true;
}

const model = start(workerData as GradientWorkerData);
model.then(() => jobs.post({ type: 'ready' }), jobs.fail);
jobs.serve<ToWorker>(async (message) => runUnit(await model, message), takeAck);
