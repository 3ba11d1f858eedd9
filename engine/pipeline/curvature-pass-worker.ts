/**
 * A curvature worker thread (started by curvature-workers.ts): its own backend (the caller's,
 * with the caller's memory budget), its own handle on the Instruct checkpoint, the sealed Δ
 * store read-only, and one directional pass at a time — at θ_I, or at the weights a probe's
 * steps move (DirectionalGradients.moved) — posted back as { loss, sequenceLosses, dots }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Checkpoint } from '../io/checkpoint.ts';
import { setMemoryBudget } from '../model/memory-plan.ts';
import { initBackend } from '../tensor/backend.ts';
import type { CurvatureWorkerData, FromCurvatureWorker, ToCurvatureWorker } from './curvature-workers.ts';
import { SealedDirections } from './direction-deltas.ts';
import { DirectionalGradients } from './directional-gradients.ts';

const port = parentPort;
if (port === null) throw new Error('curvature-pass-worker.ts runs as a worker thread (curvature-workers.ts starts it)');
const setup = workerData as CurvatureWorkerData;

async function start(): Promise<{ instruct: Checkpoint; along: DirectionalGradients }> {
  const [instruct, deltas] = await Promise.all([
    Checkpoint.open(setup.instruct),
    SealedDirections.open(setup.sealed, setup.size, setup.directionCount),
    initBackend(setup.backend),
  ]);
  setMemoryBudget(setup.memoryBudget);
  return { instruct, along: new DirectionalGradients(instruct, deltas) };
}

async function runPass(message: ToCurvatureWorker): Promise<void> {
  const { instruct, along } = await ready;
  const weights = message.steps === null ? instruct : along.moved(message.steps, undefined);
  const pass = await along.pass(weights, message.sequences, setup.batchSize, undefined);
  port?.postMessage({ type: 'passed', pass } satisfies FromCurvatureWorker, [pass.dots.buffer as ArrayBuffer]);
}

const ready = start();
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToCurvatureWorker) => {
  queue = queue.then(() => runPass(message)).catch((error: unknown) => {
    port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromCurvatureWorker);
  });
});
