/**
 * `npm run bench:analysis`: the engine's forward and forward+backward against PyTorch on the CPU,
 * same Qwen3 shapes, same weights, same tokens, same loss, and both against the matmul peaks
 * measured in the same run.
 *
 *   npm run bench:analysis -- [--layers 2] [--seq 128] [--batch 2] [--vocab 151936] [--runs 3]
 *
 * The checkpoint is random (F32, seeded) with Qwen3-0.6B's layer shapes (hidden 1024, 16 query
 * heads over 8 KV heads of 128, MLP 3072, tied 151,936-row head), cut to --layers. The engine
 * runs on its active backend (wasm here: one thread under Node); the torch side is
 * tools/bench_analysis_torch.py on Debian's /usr/bin/python3, float32, torch.set_num_threads(1).
 * Forward = per-sequence mean next-token cross-entropy (the engine's sequenceLosses);
 * forward+backward = that loss and the gradients of every layer parameter (the engine's
 * lossAndLayerGrads, which recomputes each layer's forward during the backward; torch's
 * autograd keeps activations instead). GFLOP/s are model FLOPs (tools/model-flops.ts; backward
 * counted as 2× forward). "machine peak" is the faster of the two measured 1024² matmul rates.
 * Medians of --runs after one warm-up each. Every rate is over CPU time, not wall time: both
 * sides run on one thread, so CPU time is their compute time, and a machine shared with other
 * jobs (descheduling) does not tilt the ratios.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { loadCausalLM } from '../engine/model/causal-lm.ts';
import { writeTinyCheckpoint } from '../engine/model/testing/tiny-checkpoint.ts';
import { SeededRandom } from '../engine/protocol/seeded-random.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { measureMatmulGflops } from '../engine/tensor/matmul-bench.ts';
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

const { values } = parseArgs({
  options: {
    layers: { type: 'string', default: '2' },
    seq: { type: 'string', default: '128' },
    batch: { type: 'string', default: '2' },
    vocab: { type: 'string', default: '151936' },
    runs: { type: 'string', default: '3' },
  },
});
const [layers, seq, batchSize, vocab, runs] = [values.layers, values.seq, values.batch, values.vocab, values.runs].map(Number) as [number, number, number, number, number];
if (![layers, seq, batchSize, vocab, runs].every((v) => Number.isSafeInteger(v) && v >= 1) || seq < 2) {
  process.stderr.write('--layers, --seq (≥ 2), --batch, --vocab and --runs must be positive integers\n');
  process.exit(2);
}

/** Median CPU seconds of `run` (this process is single-threaded: CPU time is compute time, unlike
 *  wall time on a shared machine). */
async function medianSeconds(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up: kernel set-up, page cache
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await cpuSeconds(run));
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

async function cpuSeconds(run: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/** The backend's 1024² matmul rate over CPU time (measureMatmulGflops times wall clock). */
async function matmulCpuGflops(): Promise<number> {
  const [size, warmup, timed] = [1024, 1, 5];
  const seconds = await cpuSeconds(() => measureMatmulGflops({ size, warmup, runs: timed }));
  return ((warmup + timed) * 2 * size ** 3) / seconds / 1e9;
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

  const checkpoint = await Checkpoint.open(dir);
  let engine: { forward: number; step: number; loss: number; matmul: number; flops: ReturnType<typeof forwardFlops> };
  try {
    const model = loadCausalLM(checkpoint);
    let loss = Number.NaN;
    const forward = await medianSeconds(async () => {
      const scores = await model.sequenceLosses(batch);
      loss = scores.reduce((sum, s) => sum + s.loss, 0) / scores.length;
    });
    const step = await medianSeconds(() => model.lossAndLayerGrads(batch, () => undefined));
    engine = { forward, step, loss, matmul: await matmulCpuGflops(), flops: forwardFlops(model.spec, seq) };
  } finally {
    await checkpoint.close();
  }
  const torchOut = execFileSync(TORCH_PYTHON, [join(import.meta.dirname, 'bench_analysis_torch.py'), dir, tokensPath, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const torch = JSON.parse(torchOut.trim().split('\n').pop() as string) as TorchResult;

  const forwardFlop = batchSize * (engine.flops.layers + engine.flops.head);
  const tokens = batchSize * seq;
  const peak = Math.max(engine.matmul, torch.matmul_gflops);
  const row = (label: string, e: number, t: number) => `${label.padEnd(30)}${e.toPrecision(3).padStart(12)}${t.toPrecision(3).padStart(14)}${(e / t).toFixed(2).padStart(14)}`;
  const share = (flop: number, seconds: number, own: number) => `${(flop / seconds / 1e9).toFixed(1)} GFLOP/s = ${(flop / seconds / 1e9 / own).toFixed(2)} of own matmul, ${(flop / seconds / 1e9 / peak).toFixed(2)} of machine peak`;
  console.log(`model    Qwen3-0.6B shapes (hidden 1024, 16/8 heads × 128, MLP 3072, tied head of ${vocab} rows), ${layers} layer${layers === 1 ? '' : 's'}, F32`);
  console.log(`tokens   ${batchSize} × ${seq} (seeded), median of ${runs} after a warm-up; every rate is over CPU time (single-threaded on both sides)`);
  console.log(`engine   ${backend.name} backend, ${backend.threads} thread${backend.threads === 1 ? '' : 's'};  torch ${torch.version} ${torch.threads} thread (float32, BLAS_INFO=${torch.blas})`);
  console.log(`${''.padEnd(30)}${'engine'.padStart(12)}${'torch'.padStart(14)}${'engine/torch'.padStart(14)}`);
  console.log(row('forward tokens/s', tokens / engine.forward, tokens / torch.forward_s));
  console.log(row('forward+backward tokens/s', tokens / engine.step, tokens / torch.step_s));
  console.log(row('matmul GFLOP/s (1024²)', engine.matmul, torch.matmul_gflops));
  console.log(`loss                          ${engine.loss.toFixed(6).padStart(12)}${torch.loss.toFixed(6).padStart(14)}   |Δ| ${Math.abs(engine.loss - torch.loss).toExponential(1)}`);
  console.log(`engine forward                ${share(forwardFlop, engine.forward, engine.matmul)}`);
  console.log(`engine forward+backward       ${share(3 * forwardFlop, engine.step, engine.matmul)}`);
  console.log(`torch forward                 ${share(forwardFlop, torch.forward_s, torch.matmul_gflops)}`);
  console.log(`torch forward+backward        ${share(3 * forwardFlop, torch.step_s, torch.matmul_gflops)}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
