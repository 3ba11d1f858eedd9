/**
 * Benchmark of one training step of the model runtime (forward + layer-wise backward via
 * lossAndLayerGrads) on a small-but-not-tiny random Qwen3, compared with the backend's own
 * dense matmul throughput measured in the same process.
 *
 * FLOPs are counted analytically (2·m·n·k per matmul; the T×T attention products counted in
 * full, as they are computed). "model" FLOPs = forward + backward (3× forward), the usual
 * convention; "executed" also counts the per-layer forward recompute of the layer-wise backward.
 */
import { rm } from 'node:fs/promises';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { loadCausalLM } from '../engine/model/causal-lm.ts';
import { SeededRandom } from '../engine/protocol/seeded-random.ts';
import { writeTinyCheckpoint } from '../engine/model/testing/tiny-checkpoint.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { measureMatmulGflops } from '../engine/tensor/matmul-bench.ts';
import { parseCli } from './cli-args.ts';
import { forwardFlops } from './model-flops.ts';

const { values } = parseCli({
  usage: ['node --import tsx tools/bench-train-step.ts [--hidden 256] [--layers 4] [--seq 128] [--batch 4] [--vocab 4096] [--runs 5]'],
  options: {
    hidden: { type: 'string', value: 'H', default: '256', help: 'hidden size of the random Qwen3 (heads of 64)' },
    layers: { type: 'string', value: 'N', default: '4', help: 'decoder layers' },
    seq: { type: 'string', value: 'T', default: '128', help: 'tokens per sequence' },
    batch: { type: 'string', value: 'B', default: '4', help: 'sequences per step' },
    vocab: { type: 'string', value: 'V', default: '4096', help: 'vocabulary size (tied head)' },
    runs: { type: 'string', value: 'N', default: '5', help: 'timed steps after one warm-up' },
  },
});
const hidden = Number(values.hidden);
const seq = Number(values.seq);
const batchSize = Number(values.batch);
const runs = Number(values.runs);

const backend = await initBackend();
const dir = await writeTinyCheckpoint({
  family: 'qwen3', hidden, layers: Number(values.layers), heads: hidden / 64, kvHeads: Math.max(1, hidden / 128), headDim: 64,
  intermediate: 3 * hidden, vocab: Number(values.vocab), tied: true, std: 0.05, seed: 1,
});
const checkpoint = await Checkpoint.open(dir);
try {
  const model = loadCausalLM(checkpoint);
  const rng = new SeededRandom(3);
  const batch = Array.from({ length: batchSize }, () => ({ ids: Array.from({ length: seq }, () => rng.int(0, model.spec.vocabSize - 1)) }));
  const step = async (): Promise<number> => {
    const start = performance.now();
    await model.lossAndLayerGrads(batch, () => undefined);
    return (performance.now() - start) / 1000;
  };
  await step(); // warm-up: kernel compilation, page cache
  const f = forwardFlops(model.spec, seq);
  const modelFlops = batchSize * 3 * (f.layers + f.head);
  const executedFlops = batchSize * (4 * f.layers + 3 * f.head);
  // Each step is bracketed by its own matmul measurements and compared with the faster of the
  // two, so a busy machine slows yardstick and step alike; the median step is reported.
  const samples: { seconds: number; matmul: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const before = measureMatmulGflops({ size: 512, runs: 5 }).gflops;
    const seconds = await step();
    const after = measureMatmulGflops({ size: 512, runs: 5 }).gflops;
    samples.push({ seconds, matmul: Math.max(before, after) });
  }
  samples.sort((a, b) => modelFlops / a.seconds / a.matmul - modelFlops / b.seconds / b.matmul);
  const { seconds, matmul } = samples[Math.floor(samples.length / 2)] as { seconds: number; matmul: number };
  const tokens = batchSize * seq;
  const achieved = modelFlops / seconds / 1e9;
  const executed = executedFlops / seconds / 1e9;
  const s = model.spec;
  console.log(`backend            ${backend.name} (${backend.threads} thread${backend.threads === 1 ? '' : 's'})`);
  console.log(`model              qwen3 hidden ${s.hiddenSize}, ${s.numLayers} layers, ${s.numHeads}/${s.numKvHeads} heads × ${s.headDim}, mlp ${s.intermediateSize}, vocab ${s.vocabSize}`);
  console.log(`batch              ${batchSize} × ${seq} tokens`);
  console.log(`step time          ${(seconds * 1000).toFixed(1)} ms (median-ratio step of ${runs})`);
  console.log(`tokens/s           ${(tokens / seconds).toFixed(0)} (forward + backward)`);
  console.log(`matmul GFLOP/s     ${matmul.toFixed(2)} (512×512, measured around that step)`);
  console.log(`achieved GFLOP/s   ${achieved.toFixed(2)} model (3× forward), ${executed.toFixed(2)} executed (with layer recompute)`);
  console.log(`ratio              ${(achieved / matmul).toFixed(2)} model, ${(executed / matmul).toFixed(2)} executed`);
} finally {
  await checkpoint.close();
  await rm(dir, { recursive: true, force: true });
}
