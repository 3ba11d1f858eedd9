/**
 * Benchmark of the data-parallel gradients stage: the real stage (pipeline/gradients-stage.ts)
 * on a random Qwen3, once in this thread (1 worker) and once per worker count asked for, in one
 * run: tokens/s of each, the speed-up over 1 worker, peak RSS, and whether the gradient files
 * are bit-identical (they must be). Worker start-up (module load, backend init) is inside the
 * timed stage: it is what a user waits for. The CPU seconds of all threads are printed too: on a
 * loaded machine the wall-clock ratio measures the share the scheduler gave us, while equal CPU
 * per run means the parallel version does no extra work. Per run it also prints each thread's CPU
 * (Linux: the main thread, the threads the run started — workers, tsx's loader threads — and
 * V8's and libuv's helper threads together) and the stage's timeline line (worker-timeline.ts:
 * each worker's start, busy, waiting and idle-at-the-end seconds): the serial and imbalanced
 * parts that a wall-clock ratio on a shared machine hides.
 *
 * --sequences is per calibration set (D_R and D_A each); a job is at most --batch sequences and
 * 1/8 of all tokens (the stage's split, gradient-batches.ts; the count is printed). Each run
 * prints the 1-minute load average at its start and end, and how many cores its CPU time kept
 * busy (CPU s / wall s).
 * The machine's load average is printed next to the figures: on a shared machine the ratio
 * measures what the other processes leave over.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { writeTinyCheckpoint } from '../engine/model/testing/tiny-checkpoint.ts';
import { defaultAnalysisSettings } from '../engine/pipeline/analysis-settings.ts';
import { writeSequences, type CalibrationSequence } from '../engine/pipeline/calibration-sequences.ts';
import { batchTokenCap, splitIntoBatches } from '../engine/pipeline/gradient-batches.ts';
import { runGradients } from '../engine/pipeline/gradients-stage.ts';
import type { PipelineContext } from '../engine/pipeline/pipeline-context.ts';
import { pipelinePaths } from '../engine/pipeline/pipeline-folder.ts';
import { StageClock } from '../engine/pipeline/progress.ts';
import { SeededRandom } from '../engine/protocol/seeded-random.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { measureMatmulGflops } from '../engine/tensor/matmul-bench.ts';
import { parseCli } from './cli-args.ts';

const { values } = parseCli({
  usage: ['npm run bench:workers -- [--workers 2] [--hidden 256] [--layers 4] [--vocab 8192] [--sequences 8] [--seq 128] [--batch 2]'],
  options: {
    workers: { type: 'string', value: 'N[,N…]', default: '2', help: 'worker counts to run besides 1 (comma-separated)' },
    hidden: { type: 'string', value: 'H', default: '256', help: 'hidden size of the random Qwen3 (heads of 32)' },
    layers: { type: 'string', value: 'N', default: '4', help: 'decoder layers' },
    vocab: { type: 'string', value: 'V', default: '8192', help: 'vocabulary size' },
    sequences: { type: 'string', value: 'N', default: '8', help: 'sequences per calibration set (D_R and D_A each)' },
    seq: { type: 'string', value: 'T', default: '128', help: 'tokens per sequence' },
    batch: { type: 'string', value: 'B', default: '2', help: 'at most B sequences per job' },
  },
});
const hidden = Number(values.hidden);
const vocab = Number(values.vocab);
const perSet = Number(values.sequences);
const seq = Number(values.seq);
const counts = [1, ...values.workers.split(',').map(Number).filter((n) => n > 1)];

const backend = await initBackend();
const root = await mkdtemp(join(tmpdir(), 'crane-bench-workers-'));
try {
  const dir = join(root, 'instruct');
  await mkdir(dir);
  await writeTinyCheckpoint({
    family: 'qwen3', hidden, layers: Number(values.layers), heads: hidden / 32, kvHeads: Math.max(1, hidden / 64), headDim: 32,
    intermediate: 3 * hidden, vocab, tied: true, std: 0.05, seed: 1,
  }, dir);
  const instruct = await Checkpoint.open(dir);
  const sequences = calibration(perSet, seq, vocab);
  const tokens = sequences.reduce((sum, s) => sum + s.ids.length, 0);
  const matmul = measureMatmulGflops({ size: 512 });
  console.log(`backend ${backend.name}, ${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} before`);
  console.log(`model: hidden ${hidden}, ${values.layers} layers, vocab ${vocab}; ${2 * perSet} sequences × ${seq} tokens, batches of ${values.batch}; matmul ${matmul.gflops.toFixed(1)} GFLOP/s (512², this thread)`);
  const sets = (['reasoning', 'agent'] as const).map((set) => sequences.filter((s) => s.set === set).map((s) => ({ ids: s.ids })));
  const cap = batchTokenCap(sets);
  console.log(`batches: ${sets.map((set) => splitIntoBatches(set, Number(values.batch), cap).length).join(' + ')} (at most ${values.batch} sequences and ${cap} tokens each, gradient-batches.ts)`);
  const results: { workers: number; seconds: number; cpuSeconds: number; peakRss: number; load: string; threads: string; log: string[]; files: Map<string, Buffer> }[] = [];
  for (const workers of counts) {
    const outDir = join(root, `run-${workers}`);
    const log: string[] = [];
    const ctx = await context(instruct, outDir, sequences, workers, Number(values.batch), log);
    const loadBefore = loadavg()[0] as number;
    const stop = sampleRss();
    const stopThreads = sampleThreadCpu();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await runGradients(ctx, new StageClock('gradients'));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const load = `${loadBefore.toFixed(1)} → ${(loadavg()[0] as number).toFixed(1)}`;
    results.push({ workers, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRss: stop(), load, threads: stopThreads(), log, files: await gradientFiles(pipelinePaths(outDir).gradients) });
  }
  const base = results[0] as (typeof results)[number];
  for (const r of results) {
    const same = r.files.size === base.files.size && [...base.files].every(([f, bytes]) => r.files.get(f)?.equals(bytes) === true);
    console.log(`${r.workers} worker${r.workers === 1 ? ' (this thread)' : 's'}: ${r.seconds.toFixed(1)} s, ${(tokens / r.seconds).toFixed(1)} tokens/s, speed-up ${(base.seconds / r.seconds).toFixed(2)}×, CPU ${r.cpuSeconds.toFixed(1)} s (all threads, ${(r.cpuSeconds / r.seconds).toFixed(2)} cores busy), load ${r.load}, peak RSS ${(r.peakRss / 2 ** 20).toFixed(0)} MiB, gradient files ${same ? 'bit-identical' : 'DIFFERENT'} to 1 worker`);
    console.log(`   CPU per thread: ${r.threads}`);
    for (const line of r.log) console.log(`   ${line}`);
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} after`);
  await instruct.close();
} finally {
  await rm(root, { recursive: true, force: true });
}

/** `perSet` random sequences of `length` tokens per set, the loss on the second half. */
function calibration(perSet: number, length: number, vocab: number): CalibrationSequence[] {
  const rng = new SeededRandom(3);
  return (['reasoning', 'agent'] as const).flatMap((set) => Array.from({ length: perSet }, (_, i) => {
    const ids = Array.from({ length }, () => Math.floor(rng.next() * vocab));
    return { set, split: 'train' as const, source: `${set}:${i}`, ids, lossMask: ids.map((_, t) => (t >= length / 2 ? 1 : 0)) };
  }));
}

/** The context runGradients reads (the Instruct checkpoint, the folder, the settings), its sequences written. */
async function context(instruct: Checkpoint, outDir: string, sequences: CalibrationSequence[], workers: number, batchSequences: number, log: string[]): Promise<PipelineContext> {
  const calibration = { reasoning: 'reasoning.jsonl', agent: 'agent.jsonl', format: 'format.jsonl' };
  const paths = pipelinePaths(outDir);
  await mkdir(paths.targets, { recursive: true });
  await writeSequences(paths.sequences, sequences);
  return {
    instruct,
    thinking: instruct,
    inputs: { instruct: {}, thinking: {}, reasoning: '', agent: '', format: '' },
    settings: { ...defaultAnalysisSettings(calibration), batchSequences, workers },
    paths,
    callbacks: { onLog: (message) => log.push(message) },
  };
}

async function gradientFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const set of ['reasoning', 'agent']) {
    for (const file of await readdir(join(dir, set))) out.set(`${set}/${file}`, await readFile(join(dir, set, file)));
  }
  return out;
}

/**
 * Samples every thread's CPU seconds (Linux /proc/self/task; elsewhere the stop function says
 * so) every 50 ms, so threads that end within the run are counted too; the stop function words
 * the main thread's, each thread started during the run (the workers, then tsx's loader threads
 * — the largest first) and the sum of those that were already running (V8's GC helpers).
 */
function sampleThreadCpu(): () => string {
  const TICKS = 100;
  const read = (): Map<string, number> => {
    const out = new Map<string, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(tid, (Number(fields[11]) + Number(fields[12])) / TICKS);
      } catch {
        // the thread ended between the listing and the read: its last sample stands
      }
    }
    return out;
  };
  if (process.platform !== 'linux') return () => 'not measured (Linux only)';
  const before = read();
  const last = new Map(before);
  const timer = setInterval(() => read().forEach((cpu, tid) => last.set(tid, cpu)), 50);
  return () => {
    clearInterval(timer);
    read().forEach((cpu, tid) => last.set(tid, cpu));
    const main = String(process.pid);
    const mainSeconds = (last.get(main) ?? 0) - (before.get(main) ?? 0);
    const started = [...last].filter(([tid]) => !before.has(tid)).map(([, cpu]) => cpu).sort((a, b) => b - a);
    const helpers = [...before].filter(([tid]) => tid !== main).reduce((sum, [tid, cpu]) => sum + (last.get(tid) ?? cpu) - cpu, 0);
    return `main ${mainSeconds.toFixed(1)} s, started threads ${started.map((s) => s.toFixed(1)).join(' / ') || 'none'} s, helpers ${helpers.toFixed(1)} s`;
  };
}

/** Samples this process's RSS (worker threads included) every 50 ms; the stop function returns the peak. */
function sampleRss(): () => number {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage.rss());
  };
}
