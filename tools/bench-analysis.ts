/**
 * `npm run bench:analysis`: the engine's forward and forward+backward against PyTorch on the CPU,
 * same Qwen3 shapes, same weights, same tokens, same loss, and both against the matmul peaks
 * measured in the same run.
 *
 * The checkpoint is random (F32, seeded) with Qwen3-0.6B's layer shapes (hidden 1024, 16 query
 * heads over 8 KV heads of 128, MLP 3072, tied 151,936-row head), cut to --layers. The engine
 * runs on its active backend (wasm here: one thread under Node); the torch side is
 * tools/bench_analysis_torch.py on Debian's /usr/bin/python3, float32, torch.set_num_threads(1).
 * Forward = per-sequence mean next-token cross-entropy (the engine's sequenceLosses);
 * forward+backward = that loss and the gradients of every layer parameter (the engine's
 * lossAndLayerGrads, which recomputes each layer's forward during the backward; torch's
 * autograd keeps activations instead). GFLOP/s are model FLOPs (tools/model-flops.ts; backward
 * counted as 2× forward). The engine's own matmul rate (1024²) is measured after every timed run
 * and its median taken; "machine peak" is the faster of it and torch's.
 * Medians of --runs after one warm-up each. Every rate is over CPU time, not wall time: both
 * sides run on one thread, so CPU time is their compute time, and a machine shared with other
 * jobs (descheduling) does not tilt the ratios.
 *
 * --before REV also runs the engine as it was at commit REV (its engine/ from `git archive`,
 * tools/engine-at-rev.ts) in this same process on the same checkpoint and tokens, the two
 * engines' runs interleaved, so a change's before/after is measured under one machine load.
 * --no-torch skips the PyTorch side (minutes at these shapes).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { loadCausalLM, type CausalLM } from '../engine/model/causal-lm.ts';
import type { LossSequence } from '../engine/model/layer-grads.ts';
import { writeTinyCheckpoint } from '../engine/model/testing/tiny-checkpoint.ts';
import { SeededRandom } from '../engine/protocol/seeded-random.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { measureMatmulGflops } from '../engine/tensor/matmul-bench.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';
import { forwardFlops } from './model-flops.ts';

const TORCH_PYTHON = '/usr/bin/python3';
/** Qwen3-0.6B's config.json shapes. */
const QWEN3_0_6B = { family: 'qwen3', hidden: 1024, intermediate: 3072, heads: 16, kvHeads: 8, headDim: 128, tied: true } as const;

interface TorchResult {
  readonly forward_s: number;
  readonly step_s: number;
  readonly loss: number;
  readonly matmul_gflops: number;
  readonly threads: number;
  readonly blas: string;
  readonly version: string;
}

/** One engine (this checkout's, or REV's) on the benchmark's checkpoint. */
interface EngineRun {
  readonly label: string;
  readonly model: Pick<CausalLM, 'spec' | 'sequenceLosses' | 'lossAndLayerGrads'>;
  readonly close: () => Promise<void>;
  readonly forward: number[];
  readonly step: number[];
  loss: number;
}

const CLI = {
  usage: ['npm run bench:analysis -- [--layers 2] [--seq 128] [--batch 2] [--vocab 151936] [--runs 3] [--before REV] [--no-torch]'],
  options: {
    layers: { type: 'string', value: 'N', default: '2', help: 'decoder layers of the Qwen3-0.6B-shaped checkpoint' },
    seq: { type: 'string', value: 'T', default: '128', help: 'tokens per sequence (≥ 2)' },
    batch: { type: 'string', value: 'B', default: '2', help: 'sequences per forward' },
    vocab: { type: 'string', value: 'V', default: '151936', help: 'vocabulary rows of the tied head' },
    runs: { type: 'string', value: 'N', default: '3', help: 'timed runs after one warm-up (medians printed)' },
    before: { type: 'string', value: 'REV', help: 'also run the engine at commit REV, interleaved with this one' },
    'no-torch': { type: 'boolean', default: false, help: 'skip the PyTorch side (minutes at these shapes)' },
  },
} as const satisfies CliSpec;
const { values } = parseCli(CLI);
const [layers, seq, batchSize, vocab, runs] = [values.layers, values.seq, values.batch, values.vocab, values.runs].map(Number) as [number, number, number, number, number];
if (![layers, seq, batchSize, vocab, runs].every((v) => Number.isSafeInteger(v) && v >= 1) || seq < 2) {
  exitWithUsageError(CLI, '--layers, --seq (≥ 2), --batch, --vocab and --runs must be positive integers');
}

/** CPU seconds of `run` (this process is single-threaded: CPU time is compute time, unlike wall time on a shared machine). */
async function cpuSeconds(run: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

function median(times: readonly number[]): number {
  return [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

/** The backend's 1024² matmul rate over CPU time (measureMatmulGflops times wall clock). */
async function matmulCpuGflops(): Promise<number> {
  const [size, warmup, timed] = [1024, 1, 5];
  const seconds = await cpuSeconds(() => measureMatmulGflops({ size, warmup, runs: timed }));
  return ((warmup + timed) * 2 * size ** 3) / seconds / 1e9;
}

/** This checkout's engine on `dir`, or with `rev` the engine/ of that commit extracted under `root`. */
async function openEngine(dir: string, rev: string | undefined, root: string): Promise<EngineRun> {
  let open: { Checkpoint: typeof Checkpoint; loadCausalLM: typeof loadCausalLM } = { Checkpoint, loadCausalLM };
  if (rev !== undefined) {
    const tree = await treeAt(rev, root, ['engine']);
    const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(tree, 'engine', path)).href)) as T;
    open = { ...(await load<{ Checkpoint: typeof Checkpoint }>('io/checkpoint.ts')), ...(await load<{ loadCausalLM: typeof loadCausalLM }>('model/causal-lm.ts')) };
  }
  const checkpoint = await open.Checkpoint.open(dir);
  return { label: rev === undefined ? 'engine' : `engine @${rev}`, model: open.loadCausalLM(checkpoint), close: () => checkpoint.close(), forward: [], step: [], loss: Number.NaN };
}

/**
 * Warm-up, then --runs timed forwards and steps of every engine, interleaved so each sees the same
 * machine load, with the matmul rate measured in every round too: its median is the yardstick
 * taken under the same load (once at the end, on a loaded machine, it swung by half).
 */
async function measureEngines(engines: readonly EngineRun[], batch: readonly LossSequence[]): Promise<number> {
  const forward = async (e: EngineRun): Promise<void> => {
    const scores = await e.model.sequenceLosses(batch);
    e.loss = scores.reduce((sum, s) => sum + s.loss, 0) / scores.length;
  };
  const step = (e: EngineRun): Promise<unknown> => e.model.lossAndLayerGrads(batch, () => undefined);
  const matmul: number[] = [];
  for (const e of engines) await forward(e);
  for (let i = 0; i < runs; i++) {
    for (const e of engines) e.forward.push(await cpuSeconds(() => forward(e)));
    matmul.push(await matmulCpuGflops());
  }
  for (const e of engines) await step(e);
  for (let i = 0; i < runs; i++) {
    for (const e of engines) e.step.push(await cpuSeconds(() => step(e)));
    matmul.push(await matmulCpuGflops());
  }
  return median(matmul);
}

const backend = await initBackend();
const root = await mkdtemp(join(tmpdir(), 'crane-bench-analysis-'));
try {
  await mkdir(join(root, 'model'));
  const dir = await writeTinyCheckpoint({ ...QWEN3_0_6B, layers, vocab, std: 0.02, seed: 1 }, join(root, 'model'));
  const rng = new SeededRandom(3);
  const ids = Array.from({ length: batchSize }, () => Array.from({ length: seq }, () => rng.int(0, vocab - 1)));
  const tokensPath = join(root, 'tokens.json');
  await writeFile(tokensPath, JSON.stringify(ids));
  const batch = ids.map((sequence) => ({ ids: sequence, targets: sequence.map(() => 1) }));

  const engines = [await openEngine(dir, undefined, root), ...(values.before === undefined ? [] : [await openEngine(dir, values.before, root)])];
  let matmul: number;
  try {
    matmul = await measureEngines(engines, batch);
  } finally {
    for (const e of engines) await e.close();
  }
  const [engine] = engines as [EngineRun, ...EngineRun[]];
  const flops = forwardFlops(engine.model.spec, seq);
  const torch = values['no-torch'] ? undefined : runTorch(dir, tokensPath);

  const forwardFlop = batchSize * (flops.layers + flops.head);
  const tokens = batchSize * seq;
  const peak = Math.max(matmul, torch?.matmul_gflops ?? 0);
  const rate = (flop: number, seconds: number, own: number) => `${(flop / seconds / 1e9).toFixed(1)} GFLOP/s = ${(flop / seconds / 1e9 / own).toFixed(2)} of own matmul, ${(flop / seconds / 1e9 / peak).toFixed(2)} of machine peak`;
  const [forward, step] = [median(engine.forward), median(engine.step)];
  console.log(`model    Qwen3-0.6B shapes (hidden 1024, 16/8 heads × 128, MLP 3072, tied head of ${vocab} rows), ${layers} layer${layers === 1 ? '' : 's'}, F32`);
  console.log(`tokens   ${batchSize} × ${seq} (seeded), median of ${runs} after a warm-up; every rate is over CPU time (single-threaded on both sides)`);
  console.log(`engine   ${backend.name} backend, ${backend.threads} thread${backend.threads === 1 ? '' : 's'};  matmul 1024² ${matmul.toFixed(1)} GFLOP/s (median of one per timed run)`);
  if (torch !== undefined) {
    const row = (label: string, e: number, t: number) => `${label.padEnd(30)}${e.toPrecision(3).padStart(12)}${t.toPrecision(3).padStart(14)}${(e / t).toFixed(2).padStart(14)}`;
    console.log(`torch    ${torch.version} ${torch.threads} thread (float32, BLAS_INFO=${torch.blas})`);
    console.log(`${''.padEnd(30)}${'engine'.padStart(12)}${'torch'.padStart(14)}${'engine/torch'.padStart(14)}`);
    console.log(row('forward tokens/s', tokens / forward, tokens / torch.forward_s));
    console.log(row('forward+backward tokens/s', tokens / step, tokens / torch.step_s));
    console.log(row('matmul GFLOP/s (1024²)', matmul, torch.matmul_gflops));
    console.log(`loss                          ${engine.loss.toFixed(6).padStart(12)}${torch.loss.toFixed(6).padStart(14)}   |Δ| ${Math.abs(engine.loss - torch.loss).toExponential(1)}`);
    console.log(`torch forward                 ${rate(forwardFlop, torch.forward_s, torch.matmul_gflops)}`);
    console.log(`torch forward+backward        ${rate(3 * forwardFlop, torch.step_s, torch.matmul_gflops)}`);
  }
  for (const e of engines) {
    const [f, s] = [median(e.forward), median(e.step)];
    console.log(`${e.label}: forward ${f.toFixed(2)} CPU s, forward+backward ${s.toFixed(2)} CPU s, loss ${e.loss.toFixed(7)}`);
    console.log(`  forward            ${rate(forwardFlop, f, matmul)}`);
    console.log(`  forward+backward   ${rate(3 * forwardFlop, s, matmul)}`);
  }
  for (const e of engines.slice(1)) console.log(`CPU time ${engine.label} / ${e.label}: forward ${(forward / median(e.forward)).toFixed(2)}, forward+backward ${(step / median(e.step)).toFixed(2)}`);
} finally {
  await rm(root, { recursive: true, force: true });
}

function runTorch(dir: string, tokensPath: string): TorchResult {
  const out = execFileSync(TORCH_PYTHON, [join(import.meta.dirname, 'bench_analysis_torch.py'), dir, tokensPath, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() as string) as TorchResult;
}
