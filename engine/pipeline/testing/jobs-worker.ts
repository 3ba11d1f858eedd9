/**
 * A worker for worker-jobs tests, serving its messages through workerJobs: 'job' waits `delay`
 * ms (a timer, so later messages arrive meanwhile) and replies 'done' with a 4-byte buffer
 * holding its id, transferred, and whether the previous job's buffer left this thread; 'job' with
 * `fail` throws instead; 'ping' is answered at once, outside the queue, with the job running.
 */
import { workerJobs } from '../worker-jobs.ts';

export type ToJobs =
  | { readonly type: 'job'; readonly id: number; readonly delay: number; readonly fail?: boolean }
  | { readonly type: 'ping' };

export type FromJobs =
  | { readonly type: 'done'; readonly id: number; readonly buffer: ArrayBuffer; readonly previousLeft: boolean }
  | { readonly type: 'pong'; readonly running: number | null }
  | { readonly type: 'failed'; readonly message: string };

const jobs = workerJobs<FromJobs>('jobs-worker.ts', 'worker-jobs.test.ts');
let running: number | null = null;
let previous: ArrayBuffer | undefined;

jobs.serve<ToJobs>(async (message) => {
  if (message.type !== 'job') throw new Error('internal: a ping reached the queue');
  running = message.id;
  await new Promise((resolve) => setTimeout(resolve, message.delay));
  running = null;
  if (message.fail === true) throw new Error(`job ${message.id} broke`);
  const buffer = Int32Array.of(message.id).buffer;
  const previousLeft = previous?.byteLength === 0;
  previous = buffer;
  return { message: { type: 'done', id: message.id, buffer, previousLeft }, transfer: [buffer] };
}, (message) => {
  if (message.type !== 'ping') return false;
  jobs.post({ type: 'pong', running });
  return true;
});
