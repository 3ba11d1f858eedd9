/**
 * A gates worker thread (started by gates-workers.ts): its own handles on both checkpoints and
 * both gradient stores, one LayerScorer, and one layer at a time — each scored layer is posted
 * back as plain data and merged by the main thread in layer order.
 */
import { workerData } from 'node:worker_threads';
import { Checkpoint } from '../io/checkpoint.ts';
import { LayerScorer } from './gates-layer.ts';
import type { FromGatesWorker, GatesWorkerData, ToGatesWorker } from './gates-workers.ts';
import { GradientStore } from './gradient-store.ts';
import { workerJobs } from './worker-jobs.ts';

const jobs = workerJobs<FromGatesWorker>('gates-worker.ts', 'gates-workers.ts');

async function start(setup: GatesWorkerData): Promise<LayerScorer> {
  const projectors = new Map(setup.projectors);
  const [instruct, thinking, reasoning, agent] = await Promise.all([
    Checkpoint.open(setup.instruct), Checkpoint.open(setup.thinking),
    GradientStore.open(setup.reasoning), GradientStore.open(setup.agent),
  ]);
  return new LayerScorer({ instruct, thinking, reasoning, agent }, setup.keepQuantile, (key) => projectors.get(key));
}

const scorer = start(workerData as GatesWorkerData);
jobs.serve<ToGatesWorker>(async (message) => ({ message: { type: 'scored', scored: await (await scorer).score(message.layer) } }));
