/**
 * `node --import tsx tools/bench-directional-pass.ts`: one curvature pass alone — a
 * DirectionalGradients.pass at θ_I (`base`) and one at the weights a probe's steps move
 * (`probe`, DirectionalGradients.moved) — on a checkpoint, with a Δ on every tensor the way the
 * curvature stage has them (one direction per layer group and norm, the embedding's Δ on two
 * rows, lm_head's over every row), seeded, held in memory. Prints per pass the wall time, CPU
 * seconds, the peak RSS, the load average, and whether two engines' losses and dots agree bit for bit.
 *
 * --before REV also runs the engine as it was at commit REV (tools/engine-at-rev.ts), old then
 * new, each in a process of its own, in one run. Node flags given to this process (e.g.
 * --cpu-prof) are passed to each engine's process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCli } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';
import type * as backendModule from '../engine/tensor/backend.ts';
import type * as checkpointModule from '../engine/io/checkpoint.ts';
import type * as directionalModule from '../engine/pipeline/directional-gradients.ts';
import type { DirectionDeltas } from '../engine/pipeline/direction-deltas.ts';
import type { TensorDelta } from '../engine/pipeline/delta-store.ts';

const PASSES = ['base', 'probe'] as const;

interface PassFigures {
  readonly pass: (typeof PASSES)[number];
  readonly wall_s: number;
  readonly cpu_s: number;
  readonly loss: number;
  readonly sequenceLosses: readonly number[];
  readonly dots: readonly number[];
}

interface Figures {
  readonly passes: readonly PassFigures[];
  readonly peak_rss_mib: number;
}

const { values } = parseCli({
  usage: ['node --import tsx tools/bench-directional-pass.ts [--model DIR] [--lengths 235,233] [--before REV]'],
  about: 'Prints per pass (base at θ_I, probe at moved weights) wall s, CPU s, peak RSS MiB and the load average.',
  options: {
    model: { type: 'string', value: 'DIR', default: '/tmp/p8/instruct', help: 'a Qwen3 checkpoint (e.g. tools/qwen3-tiny-pair.ts --shape 0.6b --layers 8)' },
    lengths: { type: 'string', value: 'A,B', default: '235,233', help: 'token counts of the sequences one pass runs' },
    before: { type: 'string', value: 'REV', help: 'also run the engine at commit REV (old, then new, each its own process) and compare losses and dots bit for bit' },
    engine: { type: 'string', value: 'ROOT', help: 'measure the engine under ROOT in this process: the bench starts these' },
  },
});
const lengths = values.lengths.split(',').map(Number);
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

/** Deterministic small values (an LCG): cheap enough for a 151,936-row Δ. */
function filled(length: number, seed: number, scale: number): Float32Array {
  const out = new Float32Array(length);
  let x = seed >>> 0;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = ((x >>> 8) / 16_777_216 - 0.5) * scale;
  }
  return out;
}

/** The curvature stage's kind of directions: embed think rows, per layer norm / attention / ffn, then the final norm and lm_head. */
class SeededDeltas implements DirectionDeltas {
  readonly size: number;
  private readonly direction = new Map<string, number>();
  private readonly kept = new Map<string, TensorDelta[]>();

  constructor(private readonly checkpoint: checkpointModule.Checkpoint, private readonly thinkRows: Int32Array) {
    let layers = 0;
    for (const name of checkpoint.tensors.keys()) {
      const layer = /^model\.layers\.(\d+)\.(.*)$/.exec(name);
      if (layer !== null) {
        const group = (layer[2] as string).includes('norm') ? 0 : (layer[2] as string).startsWith('self_attn') ? 1 : 2;
        this.direction.set(name, 1 + 3 * Number(layer[1]) + group);
        layers = Math.max(layers, Number(layer[1]) + 1);
      }
    }
    this.direction.set('model.embed_tokens.weight', 0);
    this.direction.set('model.norm.weight', 1 + 3 * layers);
    if (checkpoint.tensors.has('lm_head.weight')) this.direction.set('lm_head.weight', 2 + 3 * layers);
    this.size = 3 + 3 * layers;
  }

  directionsOf(name: string): readonly number[] {
    const b = this.direction.get(name);
    return b === undefined ? [] : [b];
  }

  deltasOf(name: string): Promise<TensorDelta[]> {
    const b = this.direction.get(name);
    if (b === undefined) return Promise.resolve([]);
    let deltas = this.kept.get(name);
    if (deltas === undefined) {
      const { shape } = this.checkpoint.tensor(name);
      const width = shape[1] ?? 1;
      deltas = name === 'model.embed_tokens.weight'
        ? [{ direction: b, values: filled(this.thinkRows.length * width, b + 1, 1e-2), rows: this.thinkRows, width }]
        : [{ direction: b, values: filled(shape.reduce((x, y) => x * y, 1), b + 1, 1e-3) }];
      this.kept.set(name, deltas);
    }
    return Promise.resolve(deltas);
  }
}

/** This process: both passes with the engine under `root`, measured one after the other. */
async function measure(root: string): Promise<Figures> {
  const from = async (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(root, path)).href) as Promise<Record<string, unknown>>;
  const { initBackend } = await from('engine/tensor/backend.ts') as typeof backendModule;
  const { Checkpoint } = await from('engine/io/checkpoint.ts') as typeof checkpointModule;
  const { DirectionalGradients } = await from('engine/pipeline/directional-gradients.ts') as typeof directionalModule;
  await initBackend('wasm');
  const checkpoint = await Checkpoint.open(values.model);
  try {
    const vocab = checkpoint.tensor('model.embed_tokens.weight').shape[0] as number;
    let x = 12345;
    const next = (): number => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) % vocab;
    const batch = lengths.map((length) => ({ ids: Int32Array.from({ length }, next) }));
    const thinkRows = Int32Array.of(batch[0]?.ids[3] ?? 0, vocab - 1);
    const deltas = new SeededDeltas(checkpoint, thinkRows);
    for (const name of checkpoint.tensors.keys()) await deltas.deltasOf(name); // made before the clocks start, as the stage's Δ are
    const along = new DirectionalGradients(checkpoint, deltas);
    const steps = Float64Array.from({ length: deltas.size }, (_, b) => 1e-3 * (1 + (b % 3)));
    const passes: PassFigures[] = [];
    for (const pass of PASSES) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const result = await along.pass(pass === 'base' ? checkpoint : along.moved(steps, undefined), batch, batch.length, undefined);
      const used = process.cpuUsage(cpu);
      passes.push({ pass, wall_s: (performance.now() - started) / 1000, cpu_s: (used.user + used.system) / 1e6, loss: result.loss, sequenceLosses: result.sequenceLosses, dots: Array.from(result.dots) });
    }
    return { passes, peak_rss_mib: process.resourceUsage().maxRSS / 1024 };
  } finally {
    await checkpoint.close();
  }
}

/** Each engine in a child process of its own, old first. */
async function compare(rev: string | undefined): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'crane-bench-pass-engines-'));
  try {
    const engines = [...(rev === undefined ? [] : [{ label: `@${rev}`, dir: await treeAt(rev, root, ['engine', 'package.json']) }]), { label: 'now', dir: join(import.meta.dirname, '..') }];
    const results: (Figures & { label: string })[] = [];
    console.log(`${values.model}, sequences of ${lengths.join(', ')} tokens`);
    for (const { label, dir } of engines) {
      const before = load();
      const out = execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--model', values.model, '--lengths', values.lengths, '--engine', dir], { encoding: 'utf8', maxBuffer: 1 << 24 });
      const figures = JSON.parse(out.trim().split('\n').at(-1) as string) as Figures;
      results.push({ label, ...figures });
      const passes = figures.passes.map((p) => `${p.pass} ${p.wall_s.toFixed(1)} s wall ${p.cpu_s.toFixed(1)} s CPU`).join(', ');
      console.log(`${label}: ${passes}; peak RSS ${figures.peak_rss_mib.toFixed(0)} MiB; load average ${before} before, ${load()} after`);
    }
    const [old, now] = results;
    if (old !== undefined && now !== undefined) {
      now.passes.forEach((p, i) => {
        const o = old.passes[i] as PassFigures;
        const same = o.loss === p.loss && o.sequenceLosses.every((l, k) => l === p.sequenceLosses[k]) && o.dots.every((d, k) => d === p.dots[k]);
        console.log(`${p.pass}: CPU ×${(o.cpu_s / p.cpu_s).toFixed(2)} less, wall ×${(o.wall_s / p.wall_s).toFixed(2)} faster; loss and dots ${same ? 'bit-identical' : 'DIFFER'}`);
      });
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (values.engine !== undefined) console.log(JSON.stringify(await measure(values.engine)));
else await compare(values.before);
