/**
 * A gradient worker thread (started by gradient-worker-pool.ts): its own tfjs backend, its own
 * handle on the Instruct checkpoint (decoder layers streamed from disk as in the main thread;
 * the embedding shared read-only, shared-weights.ts), and one batch at a time through
 * lossAndPassGrads (keepPassParts: the sum, and a looped model's per-pass parts). Each layer's gradient sum is posted (buffers transferred) as soon as it
 * exists; the next layer waits for the main thread's ack of the previous one, so at most one
 * layer is in flight and the backward pass overlaps the main thread's folding.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { passCount } from '../model/loop-config.ts';
import { setMemoryBudget } from '../model/memory-plan.ts';
import { initBackend } from '../tensor/backend.ts';
import { packLayer, type FromWorker, type GradientWorkerSetup, type ToWorker } from './gradient-worker-protocol.ts';
import { keepPassParts } from './pass-gradients.ts';
import { withSharedTensors } from './shared-weights.ts';

const port = parentPort;
if (port === null) throw new Error('gradient-worker.ts runs as a worker thread (gradient-worker-pool.ts starts it)');
const post = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

let releaseAck: (() => void) | undefined;
let pendingAck: Promise<void> = Promise.resolve();
let queue: Promise<void> = Promise.resolve();

async function start(setup: GradientWorkerSetup): Promise<CausalLM> {
  await initBackend(setup.backend);
  setMemoryBudget(setup.memoryBudget);
  const checkpoint = await Checkpoint.open(setup.checkpointDir);
  return loadCausalLM(withSharedTensors(checkpoint, setup.shared));
}

async function runUnit(model: CausalLM, request: Extract<ToWorker, { type: 'unit' }>): Promise<void> {
  const sequences = request.sequences.map((s) => ({ ids: s.ids, targets: s.targets }));
  await model.lossAndPassGrads(sequences, keepPassParts(passCount(model.spec), async (layer, grads) => {
    await pendingAck;
    pendingAck = new Promise((resolve) => (releaseAck = resolve));
    const { message, transfer } = packLayer(request.unit, layer, grads);
    post(message, transfer);
  }), request.options);
  await pendingAck;
  post({ type: 'done', unit: request.unit });
}

const fail = (error: unknown): void => post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });

const model = start(workerData as GradientWorkerSetup);
model.then(() => post({ type: 'ready' }), fail);
port.on('message', (message: ToWorker) => {
  if (message.type === 'ack') {
    releaseAck?.();
    return;
  }
  queue = queue.then(async () => runUnit(await model, message)).catch(fail);
});
