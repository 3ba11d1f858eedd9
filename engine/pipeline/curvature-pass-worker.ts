/**
 * A curvature worker thread (started by curvature-workers.ts): its own backend (the caller's,
 * with the caller's memory budget), its own handle on the Instruct checkpoint, the sealed Δ
 * store read-only and the Thinking checkpoint when its start data has them, and one pass at a
 * time — directional, at θ_I or at the weights a probe's steps move (DirectionalGradients.moved),
 * or an anchor's forward at the default edit (curvature-anchors.ts) — posted back as
 * { loss, sequenceLosses, dots }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Checkpoint } from '../io/checkpoint.ts';
import { setMemoryBudget } from '../model/memory-plan.ts';
import { initBackend } from '../tensor/backend.ts';
import { anchorPass } from './curvature-anchors.ts';
import type { CurvatureWorkerData, FromCurvatureWorker, ToCurvatureWorker } from './curvature-workers.ts';
import { SealedDirections } from './direction-deltas.ts';
import { DirectionalGradients, type DirectionalPass } from './directional-gradients.ts';

const port = parentPort;
if (port === null) throw new Error('curvature-pass-worker.ts runs as a worker thread (curvature-workers.ts starts it)');
const setup = workerData as CurvatureWorkerData;

interface Opened {
  readonly instruct: Checkpoint;
  readonly along?: DirectionalGradients;
  readonly thinking?: Checkpoint;
}

async function start(): Promise<Opened> {
  const { directions, anchors } = setup;
  const [instruct, deltas, thinking] = await Promise.all([
    Checkpoint.open(setup.instruct),
    directions === undefined ? undefined : SealedDirections.open(directions.sealed, directions.size, directions.directionCount),
    anchors === undefined ? undefined : Checkpoint.open(anchors.thinking),
    initBackend(setup.backend),
  ]);
  setMemoryBudget(setup.memoryBudget);
  return { instruct, ...(deltas === undefined ? {} : { along: new DirectionalGradients(instruct, deltas) }), ...(thinking === undefined ? {} : { thinking }) };
}

async function run(message: ToCurvatureWorker): Promise<DirectionalPass> {
  const { instruct, along, thinking } = await ready;
  if (message.type === 'anchor') {
    if (thinking === undefined || setup.anchors === undefined) throw new Error('internal: an anchor sent to a curvature worker started without the anchors\' data');
    return anchorPass(instruct, thinking, setup.anchors.edit, message.alpha, message.sequences, setup.batchSize, undefined);
  }
  if (along === undefined) throw new Error('internal: a directional pass sent to a curvature worker started without the sealed Δ');
  const weights = message.steps === null ? instruct : along.moved(message.steps, undefined);
  return along.pass(weights, message.sequences, setup.batchSize, undefined);
}

const ready = start();
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToCurvatureWorker) => {
  queue = queue.then(async () => {
    const pass = await run(message);
    port.postMessage({ type: 'passed', pass } satisfies FromCurvatureWorker, [pass.dots.buffer as ArrayBuffer]);
  }).catch((error: unknown) => {
    port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies FromCurvatureWorker);
  });
});
