/**
 * Real-shape memory benchmark: writes Qwen3-4B-shaped checkpoints (hidden 2,560, MLP 9,728,
 * 32 query heads over 8 KV heads of 128, vocab 151,936, tied embedding as Qwen3-4B; random BF16
 * weights; the layer count cut to --layers) and a Qwen3-0.6B-shaped one in a temp folder, then
 * runs each step in a fresh process and prints its peak RSS and wasm heap high-water mark:
 *
 *   4B   score      masked loss of one --tokens sequence + logits at its last positions
 *   4B   gradients  loss and every layer's gradient (head gradients too) at --tokens tokens
 *   4B   export     task arithmetic of the pair (BF16), peak RSS against the largest tensor
 *   0.6B gradients the same forward+backward at 0.6B shapes
 *   3B   gradients-looped  the same at Nanbeige4.2-3B shapes (two passes over the layers), the
 *                    parts that wait for pass 0 held in memory up to --pass-hold (default: the
 *                    memory plan's passPartHoldBytes) and spilled to disk past it
 *
 * --targets N makes only the last N tokens loss targets (default all): the head's products scale
 * with the targets, attention and the layers with --tokens.
 *
 * A step that runs out of wasm memory fails with tfjs's "memory access out of bounds"; the
 * script then exits non-zero. Timings are printed for orientation only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { loadCausalLM } from '../engine/model/causal-lm.ts';
import { sumOverPasses } from '../engine/model/loop-grad-sums.ts';
import { passCount } from '../engine/model/loop-config.ts';
import { passPartHoldBytes, setMemoryBudget } from '../engine/model/memory-plan.ts';
import { formatBytes } from '../engine/protocol/format-bytes.ts';
import { parseByteSize } from '../engine/cli/cli-settings.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { exportVerdict, peakRss, wasmHeapBytes } from './memory-report.ts';
import { QWEN3_VOCAB, writeShapedLoopedModel, writeShapedModel } from './shaped-checkpoint.ts';

const STEPS = ['score', 'gradients', 'export', 'gradients-0.6b', 'gradients-looped'] as const;
type Step = (typeof STEPS)[number];

const CLI = {
  usage: [
    `npm run bench:shapes -- [--layers 1] [--tokens 2048] [--targets N] [--memory-budget 3GiB] [--pass-hold 3GiB] [--only ${STEPS.join(',')}] [--keep]`,
    'node --import tsx tools/bench-shapes.ts --step STEP --dir ROOT [the options above]',
  ],
  options: {
    layers: { type: 'string', value: 'N', default: '1', help: 'decoder layers of every checkpoint (≥ 1)' },
    tokens: { type: 'string', value: 'T', default: '2048', help: 'tokens of the sequence (≥ 2)' },
    targets: { type: 'string', value: 'N', help: 'only the last N tokens are loss targets, 1…T−1 (default T−1: all)' },
    'memory-budget': { type: 'string', value: 'SIZE', help: 'tensor memory the model plans its chunks for (e.g. 3GiB)' },
    'pass-hold': { type: 'string', value: 'SIZE', help: "gradients-looped: pass parts held in memory before spilling (default: the memory plan's)" },
    only: { type: 'string', value: 'LIST', help: `steps to run, comma-separated, of ${STEPS.join(', ')} (default all)` },
    keep: { type: 'boolean', help: 'keep the temp folder and print its path' },
    step: { type: 'string', value: 'STEP', help: 'run one step in this process on --dir: the bench starts these' },
    dir: { type: 'string', value: 'ROOT', help: 'with --step: the folder holding the checkpoints' },
  },
} as const satisfies CliSpec;
const { values: args } = parseCli(CLI);
const layers = Number(args.layers);
const tokens = Number(args.tokens);
/** Loss targets: the last `targets` tokens (default all); the head's work scales with them, the layers' does not. */
const targets = args.targets === undefined ? tokens - 1 : Number(args.targets);

function sequence(): { ids: number[]; targets: number[] } {
  const ids = Array.from({ length: tokens }, (_, i) => (i * 7919 + 13) % 151_643);
  return { ids, targets: ids.map((_, t) => (t >= tokens - targets ? 1 : 0)) };
}

async function gradientStep(dir: string): Promise<Record<string, number>> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    let tensors = 0;
    const result = await loadCausalLM(checkpoint).lossAndLayerGrads([sequence()], (_layer, grads) => {
      tensors += grads.size;
    }, { headGrads: true });
    return { loss: result.loss, gradientTensors: tensors };
  } finally {
    await checkpoint.close();
  }
}

/** The looped step: the same walk as lossAndLayerGrads, with the stash's hold set by --pass-hold. */
async function loopedGradientStep(dir: string): Promise<Record<string, number>> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    const model = loadCausalLM(checkpoint);
    const hold = args['pass-hold'] === undefined ? passPartHoldBytes() : parseByteSize(args['pass-hold'], '--pass-hold');
    let tensors = 0;
    const onPart = sumOverPasses(passCount(model.spec), (_layer, grads) => {
      tensors += grads.size;
    }, hold);
    const result = await model.lossAndPassGrads([sequence()], onPart, { headGrads: true });
    return { loss: result.loss, gradientTensors: tensors, passHold: hold };
  } finally {
    await checkpoint.close();
  }
}

async function runStep(step: Exclude<Step, 'export'>, root: string): Promise<Record<string, number>> {
  if (args['memory-budget'] !== undefined) setMemoryBudget(parseByteSize(args['memory-budget'], '--memory-budget'));
  await initBackend('wasm');
  if (step === 'gradients-looped') return loopedGradientStep(join(root, 'looped'));
  if (step === 'gradients') return gradientStep(join(root, 'instruct'));
  if (step === 'gradients-0.6b') return gradientStep(join(root, 'small'));
  const checkpoint = await Checkpoint.open(join(root, 'instruct'));
  try {
    const model = loadCausalLM(checkpoint);
    const [score] = await model.sequenceLosses([sequence()]);
    const logits = await model.forwardLogits(sequence().ids, [tokens - 2, tokens - 1]);
    return { loss: score?.loss ?? Number.NaN, logitRows: logits.rows };
  } finally {
    await checkpoint.close();
  }
}

/** One step in a fresh process; the export is bench-memory's export phase, the one `npm run bench:memory` measures. */
function child(step: Step, root: string): Record<string, number> {
  const budget = [
    ...(args['memory-budget'] === undefined ? [] : ['--memory-budget', args['memory-budget']]),
    ...(args['pass-hold'] === undefined ? [] : ['--pass-hold', args['pass-hold']]),
  ];
  const command = step === 'export'
    ? ['tools/bench-memory.ts', '--phase', 'export', '--dir', root]
    : ['tools/bench-shapes.ts', '--step', step, '--dir', root, '--layers', String(layers), '--tokens', String(tokens), '--targets', String(targets), ...budget];
  const run = spawnSync(process.execPath, ['--import', 'tsx', ...command], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20,
  });
  if (run.status !== 0) throw new Error(`step ${step} failed (exit ${run.status})`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as Record<string, number>;
}

function report(step: Step, r: Record<string, number>): string {
  const head = `${step.padEnd(15)} peak RSS ${formatBytes(r['peakRss'] ?? 0).padStart(9)}   wasm heap ${formatBytes(r['wasmHeap'] ?? 0).padStart(9)}   ${(r['seconds'] ?? 0).toFixed(0).padStart(4)} s`;
  if (step === 'export') return `${step.padEnd(15)} ${exportVerdict(r)}`;
  const hold = r['passHold'] === undefined ? '' : `   pass parts held up to ${formatBytes(r['passHold'])}`;
  return `${head}   loss ${(r['loss'] ?? Number.NaN).toFixed(4)}${hold}`;
}

if (args.step !== undefined) {
  const started = performance.now();
  const result = await runStep(args.step as Exclude<Step, 'export'>, args.dir as string);
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ ...result, seconds, peakRss: peakRss(), wasmHeap: wasmHeapBytes() }));
} else {
  const only = args.only === undefined ? [...STEPS] : args.only.split(',');
  const unknown = only.filter((s) => !(STEPS as readonly string[]).includes(s));
  if (unknown.length > 0 || !(Number.isInteger(layers) && layers >= 1) || !(Number.isInteger(tokens) && tokens >= 2) || !(Number.isInteger(targets) && targets >= 1 && targets < tokens)) {
    exitWithUsageError(CLI, `--layers N ≥ 1, --tokens T ≥ 2, --targets 1…T−1, --only of ${STEPS.join(',')}`);
  }
  const root = await mkdtemp(join(tmpdir(), 'crane-shapes-'));
  try {
    const started = performance.now();
    if (only.some((step) => step !== 'gradients-looped')) await writeShapedModel(join(root, 'instruct'), '4b', { layers, seed: 1 });
    if (only.includes('gradients-looped')) await writeShapedLoopedModel(join(root, 'looped'), { layers, seed: 4 });
    if (only.includes('export')) await writeShapedModel(join(root, 'thinking'), '4b', { layers, seed: 2 });
    if (only.includes('gradients-0.6b')) await writeShapedModel(join(root, 'small'), '0.6b', { layers, seed: 3 });
    const models = [...(only.some((step) => step !== 'gradients-looped') ? [`Qwen3-4B-shaped (vocab ${QWEN3_VOCAB})`] : []), ...(only.includes('gradients-looped') ? ['Nanbeige4.2-3B-shaped (vocab 166144)'] : [])];
    console.log(`wrote ${models.join(' and ')} checkpoints (${layers} layer${layers === 1 ? '' : 's'}, BF16) in ${((performance.now() - started) / 1000).toFixed(0)} s; sequences of ${tokens} tokens, the last ${targets} of them loss targets`);
    let failed = false;
    for (const step of only as Step[]) {
      try {
        console.log(report(step, child(step, root)));
      } catch (error) {
        failed = true;
        console.log(`${step.padEnd(15)} FAILED: ${(error as Error).message}`);
      }
    }
    if (failed) process.exitCode = 1;
  } finally {
    if (args.keep !== true) await rm(root, { recursive: true, force: true });
    else console.log(`kept ${root}`);
  }
}
