/**
 * Benchmark of a curvature pass's head dots two ways, each in a child process of its own so that
 * peak RSS and CPU seconds are the pass's alone: `grads` asks lossAndLayerGrads for the
 * vocab-sized head gradients (`headGrads`, what DirectionalGradients did before) and dots them,
 * `directions` hands the same Δ to the backward (`headDirections`, model/head-directions.ts).
 * The Δ are a curvature stage's: a whole lm_head one (lm-head-scale) and two embedding rows
 * (think rows), seeded, made when the pass needs them (the stage reads them back from its
 * scratch file then). Prints each mode's wall, CPU and peak RSS, and the largest relative
 * difference between the two modes' dots and losses.
 *
 * The machine's load average is printed next to the figures: on a shared machine wall time
 * measures what the other processes leave over; CPU seconds and peak RSS do not.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { loadCausalLM } from '../engine/model/causal-lm.ts';
import { dot64, type HeadDirections, type StoredDirection } from '../engine/model/head-directions.ts';
import { HEAD_GRADS_LAYER } from '../engine/model/layer-grads.ts';
import { EMBED_NAME, LM_HEAD_NAME } from '../engine/model/weights.ts';
import { SeededRandom } from '../engine/protocol/seeded-random.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { parseCli } from './cli-args.ts';

const MODES = ['grads', 'directions'] as const;
type Mode = (typeof MODES)[number];

interface Run {
  readonly mode: Mode;
  readonly loss: number;
  readonly dots: number[];
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
}

const { values } = parseCli({
  usage: ['node --import tsx tools/bench-head-directions.ts [--model /tmp/p8/instruct] [--tokens 125] [--seed 1]'],
  options: {
    model: { type: 'string', value: 'DIR', default: '/tmp/p8/instruct', help: 'the checkpoint whose head the pass runs through' },
    tokens: { type: 'string', value: 'T', default: '125', help: 'tokens of the one seeded sequence' },
    seed: { type: 'string', value: 'S', default: '1', help: 'seed of the tokens and the Δ' },
    child: { type: 'string', value: `${MODES.join('|')}`, help: 'run one mode in this process: the bench starts these' },
  },
});

if (values.child === undefined) {
  const runs = MODES.map((mode) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, ...process.argv.slice(2), '--child', mode], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 })) as Run);
  const [old, now] = runs as [Run, Run];
  console.log(`${values.model}, ${values.tokens} tokens, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
  for (const r of runs) console.log(`${r.mode.padEnd(10)} wall ${r.wallSeconds.toFixed(1)} s  CPU ${r.cpuSeconds.toFixed(1)} s  peak RSS ${r.peakRssMiB.toFixed(0)} MiB  loss ${r.loss}  dots ${r.dots.map((d) => d.toPrecision(8)).join(' ')}`);
  const worst = Math.max(...old.dots.map((d, i) => Math.abs(d - (now.dots[i] as number)) / Math.abs(d)));
  console.log(`directions / grads: CPU ${(now.cpuSeconds / old.cpuSeconds).toFixed(2)}×, peak RSS ${(now.peakRssMiB - old.peakRssMiB).toFixed(0)} MiB; dots' max relative difference ${worst.toExponential(2)}, |Δloss| ${Math.abs(now.loss - old.loss).toExponential(2)}`);
} else {
  console.log(JSON.stringify(await measure(values.child as Mode)));
}

async function measure(mode: Mode): Promise<Run> {
  await initBackend('wasm');
  const checkpoint = await Checkpoint.open(values.model);
  try {
    const model = loadCausalLM(checkpoint);
    const { vocabSize, hiddenSize, tiedEmbeddings } = model.spec;
    const rng = new SeededRandom(Number(values.seed));
    const ids = Array.from({ length: Number(values.tokens) }, () => rng.int(0, vocabSize - 1));
    const thinkRows = Int32Array.from([ids[3] as number, vocabSize - 1]);
    // Made when asked, from their own seed: the same Δ in both modes, alive only from then on.
    const directions = (): HeadDirections => {
      const local = new SeededRandom(Number(values.seed) + 1);
      const rows = { rows: thinkRows, values: local.normals(thinkRows.length * hiddenSize, 1e-2) };
      return { embedding: [rows], lmHead: tiedEmbeddings ? [] : [{ values: local.normals(vocabSize * hiddenSize, 1e-3) }] };
    };
    const started = performance.now();
    const cpu = process.cpuUsage();
    let dots: number[] = [];
    const batch = [{ ids }];
    const result = mode === 'grads'
      ? await model.lossAndLayerGrads(batch, (layer, grads) => {
        if (layer !== HEAD_GRADS_LAYER) return;
        const { embedding, lmHead } = directions();
        const embed = grads.get(EMBED_NAME) as Float32Array;
        const rows = embedding[0] as { rows: Int32Array; values: Float32Array };
        const rowDot = Array.from(rows.rows).reduce((sum, r, k) => sum + dot64(embed.subarray(r * hiddenSize, (r + 1) * hiddenSize), rows.values.subarray(k * hiddenSize, (k + 1) * hiddenSize)), 0);
        dots = [rowDot, ...lmHead.map((d) => dot64(grads.get(LM_HEAD_NAME) as Float32Array, (d as StoredDirection).values))];
      }, { headGrads: true })
      : await model.lossAndLayerGrads(batch, () => undefined, { headDirections: () => Promise.resolve(directions()) });
    if (mode === 'directions') dots = [...(result.headDots?.embedding ?? []), ...(result.headDots?.lmHead ?? [])];
    const used = process.cpuUsage(cpu);
    return { mode, loss: result.loss, dots, wallSeconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
  } finally {
    await checkpoint.close();
  }
}
