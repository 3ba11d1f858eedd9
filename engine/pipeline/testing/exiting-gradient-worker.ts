/**
 * A gradient worker that dies: it reports ready, then ends its thread with exit code 3 on the
 * first job, as a worker killed by the system would. For gradient-worker-pool tests.
 */
import { parentPort } from 'node:worker_threads';
import type { FromWorker, ToWorker } from '../gradient-worker-protocol.ts';

parentPort?.postMessage({ type: 'ready' } satisfies FromWorker);
parentPort?.on('message', (message: ToWorker) => {
  if (message.type === 'unit') process.exit(3);
});
