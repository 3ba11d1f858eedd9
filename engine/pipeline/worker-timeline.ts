/**
 * Where each worker thread's time went in a pool run, and the main thread's: the stage's last log
 * line (gradients-stage.ts) and what `npm run bench:workers` prints beside its speed-up. A
 * speed-up below the worker count is either a serial part (the main thread busy while workers
 * wait) or imbalance (one worker idle while another still computes); wall clock on a shared
 * machine cannot tell them apart, event-loop idle time can.
 *
 *   const timeline = new WorkerTimeline()          // main thread, before the workers start
 *   timeline.start(id)  timeline.ready(id, worker)  timeline.jobDone(id, worker)
 *   timeline.summary() → WorkerTimes[] and the main thread's; describeTimes(…) words them
 *
 * A worker's busy and waiting come from its event-loop utilisation (node:perf_hooks): busy is
 * time its loop ran (a pass's compute, packing layers), waiting the time it sat idle between
 * messages (an ack, its next job, a disk read). On a loaded machine busy includes time the
 * scheduler gave to other processes (up to load ÷ cores times the CPU time), waiting does not.
 * The main thread's share is its CPU time (Linux /proc/thread-self; elsewhere not given): its
 * folds run in short bursts between waits, which load inflates most.
 */
import { readFileSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';

export interface WorkerTimes {
  /** 1-based, as errors name workers. */
  readonly worker: number;
  readonly jobs: number;
  /** Start to ready: the module graph, the backend, its part of the shared tensors. */
  readonly startSeconds: number;
  /** Ready to its last job's end. */
  readonly busySeconds: number;
  readonly waitSeconds: number;
  /** Its last job's end to the end of the run: waiting for the other workers. */
  readonly tailSeconds: number;
}

export interface PoolTimes {
  readonly workers: readonly WorkerTimes[];
  readonly wallSeconds: number;
  /** The main thread's CPU over the run (folding, writing, dispatching); undefined where not measured. */
  readonly mainCpuSeconds: number | undefined;
}

interface Track {
  readonly startedAt: number;
  readyAt?: number;
  atReady?: EventLoopUtilization;
  lastDone?: { readonly at: number; readonly elu: EventLoopUtilization };
  jobs: number;
}

const seconds = (ms: number): number => ms / 1000;

/** The calling thread's CPU seconds (user + system), or undefined without Linux's /proc/thread-self. */
export function threadCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks (USER_HZ, 100 on Linux)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export class WorkerTimeline {
  private readonly tracks = new Map<number, Track>();
  private readonly begunAt = performance.now();
  private readonly mainCpuAtStart = threadCpuSeconds();

  start(id: number): void {
    this.tracks.set(id, { startedAt: performance.now(), jobs: 0 });
  }

  ready(id: number, worker: Worker): void {
    const track = this.track(id);
    track.readyAt = performance.now();
    track.atReady = worker.performance.eventLoopUtilization();
  }

  jobDone(id: number, worker: Worker): void {
    const track = this.track(id);
    track.jobs++;
    track.lastDone = { at: performance.now(), elu: worker.performance.eventLoopUtilization() };
  }

  /** The times so far, with now as the end of the run. */
  summary(): PoolTimes {
    const end = performance.now();
    const workers = [...this.tracks].map(([worker, track]): WorkerTimes => {
      const readyAt = track.readyAt ?? end;
      const lastAt = track.lastDone?.at ?? readyAt;
      const ran = track.atReady === undefined || track.lastDone === undefined ? undefined : track.lastDone.elu;
      return {
        worker,
        jobs: track.jobs,
        startSeconds: seconds(readyAt - track.startedAt),
        busySeconds: ran === undefined ? 0 : seconds(ran.active - (track.atReady as EventLoopUtilization).active),
        waitSeconds: ran === undefined ? 0 : seconds(ran.idle - (track.atReady as EventLoopUtilization).idle),
        tailSeconds: seconds(end - lastAt),
      };
    });
    const cpu = threadCpuSeconds();
    const mainCpuSeconds = cpu === undefined || this.mainCpuAtStart === undefined ? undefined : cpu - this.mainCpuAtStart;
    return { workers, wallSeconds: seconds(end - this.begunAt), mainCpuSeconds };
  }

  private track(id: number): Track {
    const track = this.tracks.get(id);
    if (track === undefined) throw new Error(`internal: worker ${id} was not started on this timeline`);
    return track;
  }
}

/**
 * "worker 1: start 1.9 s, 2 batches busy 40.2 s, waited 1.1 s, idle at the end 0.4 s; …; main
 * thread CPU 6.1 s in 45.0 s" (`noun`: what a job is called, singular and plural).
 */
export function describeTimes(times: PoolTimes, noun: readonly [string, string] = ['job', 'jobs']): string {
  const s = (value: number): string => `${value.toFixed(1)} s`;
  const jobs = (count: number): string => `${count} ${noun[count === 1 ? 0 : 1]}`;
  const workers = times.workers.map((w) => `worker ${w.worker}: start ${s(w.startSeconds)}, ${jobs(w.jobs)} busy ${s(w.busySeconds)}, waited ${s(w.waitSeconds)}, idle at the end ${s(w.tailSeconds)}`);
  const main = times.mainCpuSeconds === undefined ? `main thread ${s(times.wallSeconds)}` : `main thread CPU ${s(times.mainCpuSeconds)} in ${s(times.wallSeconds)}`;
  return [...workers, main].join('; ');
}
