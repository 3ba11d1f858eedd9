/**
 * The pool timeline on a real worker thread: jobs counted per worker, a worker that sleeps between
 * its jobs shows that as waiting (its event loop idle), one that spins as busy, and the summary
 * words every worker and the main thread.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { describeTimes, threadCpuSeconds, WorkerTimeline } from './worker-timeline.ts';

/** Answers each message after `spin` ms of busy loop, or after a `sleep` ms timer. */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ spin, sleep }) => {
  const end = Date.now() + spin;
  while (Date.now() < end);
  setTimeout(() => parentPort.postMessage('done'), sleep);
});
parentPort.postMessage('ready');
`;

async function job(worker: Worker, spin: number, sleep: number): Promise<void> {
  worker.postMessage({ spin, sleep });
  await once(worker, 'message');
}

describe('worker timeline', () => {
  it('tells a worker that waited from one that computed, per worker and job', async () => {
    const timeline = new WorkerTimeline();
    const workers = [1, 2].map((id) => {
      timeline.start(id);
      return new Worker(SOURCE, { eval: true });
    });
    try {
      await Promise.all(workers.map(async (worker, i) => {
        await once(worker, 'message');
        timeline.ready(i + 1, worker);
      }));
      const [sleeper, spinner] = workers as [Worker, Worker];
      await job(spinner, 300, 0);
      timeline.jobDone(2, spinner);
      for (let n = 0; n < 2; n++) {
        await job(sleeper, 0, 150);
        timeline.jobDone(1, sleeper);
      }
      const times = timeline.summary();
      const [slept, spun] = times.workers;
      expect(slept).toMatchObject({ worker: 1, jobs: 2 });
      expect(spun).toMatchObject({ worker: 2, jobs: 1 });
      // the sleeper's loop sat idle through the spin and its own timers; the spinner's ran
      expect(slept?.waitSeconds).toBeGreaterThan(slept?.busySeconds as number);
      expect(spun?.busySeconds).toBeGreaterThan(spun?.waitSeconds as number);
      // the spinner was done before the sleeper's jobs: idle at the end, the sleeper not
      expect(spun?.tailSeconds).toBeGreaterThan(slept?.tailSeconds as number);
      expect(describeTimes(times, ['batch', 'batches'])).toMatch(/^worker 1: start \d+\.\d s, 2 batches busy \d+\.\d s, waited \d+\.\d s, idle at the end \d+\.\d s; worker 2: start \d+\.\d s, 1 batch busy .*; main thread (CPU \d+\.\d s in )?\d+\.\d s$/);
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
  });

  it.runIf(process.platform === 'linux')('measures this thread\'s CPU time, which a busy loop advances', () => {
    const before = threadCpuSeconds() as number;
    expect(before).toBeGreaterThan(0);
    // spin until the clock ticks (USER_HZ): a measure of another thread, or of wall time, would not move with it alone
    const deadline = Date.now() + 10_000;
    while ((threadCpuSeconds() as number) === before && Date.now() < deadline);
    expect(threadCpuSeconds()).toBeGreaterThan(before);
  });

  it('refuses a worker it did not see start', async () => {
    const worker = new Worker('', { eval: true });
    try {
      expect(() => new WorkerTimeline().jobDone(3, worker)).toThrow(/worker 3 was not started/);
    } finally {
      await worker.terminate();
    }
  });
});
