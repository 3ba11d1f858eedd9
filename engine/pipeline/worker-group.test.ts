/**
 * WorkerGroup on real worker threads (testing/scripted-worker.ts): messages reach onMessage,
 * finish() ends the group with success, and each way a worker goes wrong — it posts 'failed', an
 * uncaught error kills it, it exits, its message handler throws, the signal fires, tracked work
 * rejects — ends the group once, with the caller's error naming the worker, and stops the other
 * workers; JobQueue hands each job out once and finishes the group after the last.
 */
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BackendError } from '../tensor/backend.ts';
import { CancelledError } from './progress.ts';
import type { FromScripted, ScriptedBehaviour } from './testing/scripted-worker.ts';
import { faultText, JobQueue, WorkerGroup, type WorkerGroupOptions } from './worker-group.ts';

const SCRIPTED = new URL('./testing/scripted-worker.ts', import.meta.url);

class TestWorkerError extends BackendError {
  override readonly name = 'TestWorkerError';
}

/** A group whose end is a promise: the failures it ended with (one entry per onEnd call). */
function groupWithEnd(abort?: WorkerGroupOptions['abort']): { group: WorkerGroup; ends: (Error | undefined)[]; ended: Promise<Error | undefined> } {
  const ends: (Error | undefined)[] = [];
  let settle: (failure: Error | undefined) => void = () => undefined;
  const ended = new Promise<Error | undefined>((resolve) => (settle = resolve));
  const group = new WorkerGroup({ abort, onEnd: (failure) => settle(ends[ends.push(failure) - 1]) });
  return { group, ends, ended };
}

/** Starts a scripted worker that is sent `value` once it is ready; its other messages go to `seen`. */
function startScripted(group: WorkerGroup, behaviour: ScriptedBehaviour, seen: FromScripted[] = [], value = 7): Worker {
  const worker = group.start<FromScripted>({
    module: SCRIPTED,
    workerData: behaviour,
    fault: (fault) => new TestWorkerError(faultText(`test worker (${behaviour})`, fault, 'before its layer was done')),
    onMessage: (message) => {
      if (message.type === 'ready') worker.postMessage(value);
      else seen.push(message);
    },
  });
  return worker;
}

const exited = (worker: Worker): Promise<number> => new Promise((resolve) => worker.once('exit', resolve));

describe('WorkerGroup', () => {
  it('passes messages on and ends with success once finished, its threads stopped', async () => {
    const { group, ends, ended } = groupWithEnd();
    const seen: FromScripted[] = [];
    const workers = [startScripted(group, 'echo', seen, 1), startScripted(group, 'echo', seen, 2)];
    const stops = workers.map(exited);
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(2);
    expect(seen).toEqual(expect.arrayContaining([{ type: 'echo', value: 1 }, { type: 'echo', value: 2 }]));
    await group.finish();
    await Promise.all(stops);
    expect(await ended).toBeUndefined();
    expect(group.closed).toBe(true);
    await group.finish();
    expect(ends).toEqual([undefined]);
  }, 60_000);

  it('ends with the caller\'s error when a worker posts that it failed, and stops the others', async () => {
    const { group, ends, ended } = groupWithEnd();
    const other = exited(startScripted(group, 'hang'));
    startScripted(group, 'fail');
    const failure = await ended;
    expect(failure).toBeInstanceOf(TestWorkerError);
    expect(failure?.message).toBe('test worker (fail) failed: no layer 7');
    await other;
    expect(ends).toHaveLength(1);
  }, 60_000);

  it('names a worker that an uncaught error killed', async () => {
    const { group, ended } = groupWithEnd();
    startScripted(group, 'throw');
    const failure = await ended;
    expect(failure).toBeInstanceOf(TestWorkerError);
    expect(failure?.message).toBe('test worker (throw) crashed: layer 7 is broken');
  }, 60_000);

  it('names a worker that exits and what it left undone', async () => {
    const { group, ended } = groupWithEnd();
    startScripted(group, 'exit');
    const failure = await ended;
    expect(failure).toBeInstanceOf(TestWorkerError);
    expect(failure?.message).toBe('test worker (exit) exited with code 3 before its layer was done');
  }, 60_000);

  it('ends with the error a message handler throws', async () => {
    const { group, ended } = groupWithEnd();
    group.start<FromScripted>({
      module: SCRIPTED,
      workerData: 'hang' satisfies ScriptedBehaviour,
      fault: (fault) => new TestWorkerError(faultText('test worker', fault)),
      onMessage: () => {
        throw new RangeError('layer 9 arrived before layer 8');
      },
    });
    const failure = await ended;
    expect(failure).toBeInstanceOf(RangeError);
    expect(failure?.message).toBe('layer 9 arrived before layer 8');
  }, 60_000);

  it('ends with CancelledError naming the stage when the signal fires, its threads stopped', async () => {
    const controller = new AbortController();
    const { group, ends, ended } = groupWithEnd({ signal: controller.signal, stage: 'gates' });
    const seen: FromScripted[] = [];
    const workers = [startScripted(group, 'hang', seen), startScripted(group, 'hang', seen)];
    const stops = workers.map(exited);
    controller.abort();
    const failure = await ended;
    expect(failure).toBeInstanceOf(CancelledError);
    expect(failure?.message).toMatch(/^gates cancelled/);
    await Promise.all(stops);
    expect(ends).toHaveLength(1);
  }, 60_000);

  it('a signal that has already fired ends the group once the caller\'s setup has started its workers, and stops them', async () => {
    const controller = new AbortController();
    controller.abort();
    const { group, ends, ended } = groupWithEnd({ signal: controller.signal, stage: 'gradients' });
    expect(group.closed).toBe(false);
    const stop = exited(startScripted(group, 'hang'));
    expect(await ended).toBeInstanceOf(CancelledError);
    expect(group.closed).toBe(true);
    await stop;
    expect(() => startScripted(group, 'echo')).toThrow(/ended/);
    expect(ends).toHaveLength(1);
  }, 60_000);

  it('fails with a tracked work\'s rejection, and settled() waits for the tracked work still running', async () => {
    const { group, ended } = groupWithEnd();
    let release: () => void = () => undefined;
    let released = false;
    group.track(new Promise<void>((resolve) => (release = resolve)).then(() => void (released = true)));
    group.track(Promise.reject(new RangeError('sink could not write layer 3')));
    const failure = await ended;
    expect(failure).toBeInstanceOf(RangeError);
    expect(failure?.message).toBe('sink could not write layer 3');
    const settled = group.settled().then(() => released);
    release();
    expect(await settled).toBe(true);
  });
});

describe('JobQueue', () => {
  it('hands out every job once, in order, and finishes the group when the last is done', async () => {
    const { group, ended } = groupWithEnd();
    const queue = new JobQueue(['a', 'b', 'c'], group);
    expect([queue.take(), queue.take()]).toEqual([{ job: 'a', index: 0 }, { job: 'b', index: 1 }]);
    queue.done();
    queue.done();
    expect(group.closed).toBe(false);
    expect(queue.take()).toEqual({ job: 'c', index: 2 });
    expect(queue.take()).toBeUndefined();
    queue.done();
    expect(await ended).toBeUndefined();
  });

  it('hands out nothing more once the group has ended', () => {
    const { group } = groupWithEnd();
    const queue = new JobQueue([1, 2], group);
    expect(queue.take()?.job).toBe(1);
    group.fail(new Error('a worker died'));
    expect(queue.take()).toBeUndefined();
  });
});
