/**
 * The worker message loop on a real worker thread (testing/jobs-worker.ts): jobs run one at a
 * time in the order their messages came, replies carry their buffers transferred, a throwing job
 * posts 'failed' and the next still runs, and a `now` message is answered while a job runs.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { FromJobs, ToJobs } from './testing/jobs-worker.ts';
import { workerSource } from './worker-bootstrap.ts';
import { workerJobs } from './worker-jobs.ts';

async function withJobsWorker(body: (send: (message: ToJobs) => void, replies: (count: number) => Promise<FromJobs[]>) => Promise<void>): Promise<void> {
  const worker = new Worker(workerSource(new URL('./testing/jobs-worker.ts', import.meta.url)), { eval: true });
  const received: FromJobs[] = [];
  let wake = (): void => undefined;
  worker.on('message', (message: FromJobs) => {
    received.push(message);
    wake();
  });
  const replies = async (count: number): Promise<FromJobs[]> => {
    while (received.length < count) await new Promise<void>((resolve) => (wake = resolve));
    return received.splice(0, count);
  };
  try {
    await body((message) => worker.postMessage(message), replies);
  } finally {
    await worker.terminate();
  }
}

describe('worker jobs', () => {
  it('serves jobs one at a time in arrival order, the reply buffers transferred', () => withJobsWorker(async (send, replies) => {
    // the first job waits longest: served at once they would finish in the other order
    send({ type: 'job', id: 1, delay: 150 });
    send({ type: 'job', id: 2, delay: 0 });
    send({ type: 'job', id: 3, delay: 30 });
    const done = await replies(3);
    expect(done.map((m) => (m.type === 'done' ? m.id : m.type))).toEqual([1, 2, 3]);
    for (const m of done) if (m.type === 'done') expect(new Int32Array(m.buffer)[0]).toBe(m.id);
    // each job's buffer left the worker with its reply
    expect(done.map((m) => m.type === 'done' && m.previousLeft)).toEqual([false, true, true]);
  }), 30_000);

  it('posts a throwing job as failed with its text, and serves the next', () => withJobsWorker(async (send, replies) => {
    send({ type: 'job', id: 1, delay: 0, fail: true });
    send({ type: 'job', id: 2, delay: 0 });
    expect(await replies(2)).toMatchObject([{ type: 'failed', message: 'job 1 broke' }, { type: 'done', id: 2 }]);
  }), 30_000);

  it('answers a now message while a job runs, outside the queue', () => withJobsWorker(async (send, replies) => {
    send({ type: 'job', id: 7, delay: 300 });
    send({ type: 'ping' });
    expect(await replies(2)).toMatchObject([{ type: 'pong', running: 7 }, { type: 'done', id: 7 }]);
  }), 30_000);

  it('refuses to run outside a worker thread, naming the module and its starter', () => {
    expect(() => workerJobs('gates-worker.ts', 'gates-workers.ts')).toThrow('gates-worker.ts runs as a worker thread (gates-workers.ts starts it)');
  });
});
