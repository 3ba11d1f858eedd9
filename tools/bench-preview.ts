/**
 * Latency of the instant preview on a synthetic 48-layer MoE analysis (Qwen3-Next-like: per layer
 * attention q/k/v/o + q/k norms, 128 routed experts × gate/up/down, a shared expert, a router
 * and two layer norms; r = 256 directions per projector key). The coefficients go through the
 * real PreviewCoefficientBuilder and GateAccumulator with one 256-wide row per tensor: the
 * preview's cost depends on the entry and direction counts, not on tensor sizes. The curvature is
 * synthetic too: one direction per coarse block, the final norm and special rows, and one per
 * routed expert (fine block), ~6,300 in all, so each call pays the curvature of a per-expert
 * model; a router term per layer; two anchors, as the curvature stage writes them.
 *
 * --before REV also times the preview as it was at commit REV (its engine/ from `git archive`)
 * on the same analysis and the same settings, call by call, and prints the largest difference
 * between the two answers: a speed change's before/after under one machine load.
 * --form dense holds M as B×B (B² per mat-vec: what the preview did before the low-rank form;
 * ~0.6 GiB per loss at this B, use few --calls); low-rank holds diag + rank-k (2·B·k).
 * Prints p50/p95/max per kind of settings change, with the curvature and without it (the same
 * settings, alternately); the aim is p95 < 5 ms with it. The load average is printed at the start
 * and the end: other processes on the machine inflate every figure.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { InstantPreview, type PreviewSettings } from '../engine/analysis/preview.ts';
import { PreviewCoefficientBuilder } from '../engine/analysis/preview-coefficients.ts';
import type { PreviewCurvature } from '../engine/analysis/preview-curvature.ts';
import { editDirections } from '../engine/crane/edit-directions.ts';
import { GateAccumulator } from '../engine/crane/gate-accumulator.ts';
import { computeGateTable } from '../engine/crane/gate-scales.ts';
import type { GspProjector } from '../engine/crane/gsp-projector.ts';
import { uniformStream } from '../engine/crane/tensor-random-stream.ts';
import { classifyTensor, projectorKey } from '../engine/crane/tensor-classification.ts';
import { defaultSteepness } from '../engine/protocol/gsp-mask.ts';
import { defaultResolvedSettings } from '../engine/protocol/settings-defaults.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';

const LAYERS = 48;
const EXPERTS = 128;
const WIDTH = 256;
const RANK = 256;

const CLI = {
  usage: ['node --import tsx tools/bench-preview.ts [--calls 3000] [--seed 1] [--form low-rank|dense] [--rank 32] [--before REV]'],
  options: {
    calls: { type: 'string', value: 'N', default: '3000', help: 'timed preview calls (after 200 warm-up ones)' },
    seed: { type: 'string', value: 'S', default: '1', help: 'seed of the synthetic analysis and of the settings walk' },
    form: { type: 'string', value: 'low-rank|dense', default: 'low-rank', help: 'how the curvature matrix is held (dense: B×B, ~0.6 GiB per loss)' },
    rank: { type: 'string', value: 'K', default: '32', help: 'rank of the low-rank form' },
    before: { type: 'string', value: 'REV', help: 'also time the preview at commit REV on the same calls' },
  },
} as const satisfies CliSpec;
const { values: args } = parseCli(CLI);
if (args.form !== 'low-rank' && args.form !== 'dense') exitWithUsageError(CLI, `--form ${args.form}: low-rank or dense`);
const random = uniformStream(Number(args.seed), 'bench-preview');
const values = (n: number, scale = 1) => Float32Array.from({ length: n }, () => (random() * 2 - 1) * scale);

function layerTensors(l: number): string[] {
  const p = `model.layers.${l}.`;
  const experts = Array.from({ length: EXPERTS }, (_, e) => ['gate', 'up', 'down'].map((m) => `${p}mlp.experts.${e}.${m}_proj.weight`)).flat();
  return [
    `${p}input_layernorm.weight`, `${p}post_attention_layernorm.weight`,
    ...['q', 'k', 'v', 'o'].map((m) => `${p}self_attn.${m}_proj.weight`), `${p}self_attn.q_norm.weight`, `${p}self_attn.k_norm.weight`,
    `${p}mlp.gate.weight`, ...['gate', 'up', 'down'].map((m) => `${p}mlp.shared_expert.${m}_proj.weight`),
    ...experts,
  ];
}

function projector(): GspProjector {
  let s = 1;
  const sigma = Float64Array.from({ length: RANK }, () => (s *= 0.97));
  return { dim: WIDTH, rank: RANK, basis: values(WIDTH * RANK, 1 / 16), sigma };
}

function buildAnalysis() {
  const projectors = new Map<string, GspProjector>();
  for (let l = 0; l < LAYERS; l++) for (const key of ['attn_input', 'ffn_input'] as const) projectors.set(projectorKey(l, key), projector());
  const gate = new GateAccumulator();
  const builder = new PreviewCoefficientBuilder(0.5, (key) => projectors.get(key));
  let tensors = 0;
  for (let l = 0; l < LAYERS; l++) {
    for (const name of layerTensors(l)) {
      const tensor = classifyTensor(name);
      const inputs = { thetaI: values(WIDTH), delta: values(WIDTH, 0.01), gradR: values(WIDTH), gradA: values(WIDTH) };
      gate.add(tensor, inputs);
      if (tensor.rule === 'crane') builder.add(tensor, [1, WIDTH], inputs);
      tensors++;
    }
  }
  return { tensors, gate: computeGateTable(gate.blocks(), 'expert'), coefficients: builder.build() };
}

/** Directions of every coarse block, the final norm, the special rows and every routed expert; random g·Δ_b and M per loss, routers. */
function syntheticCurvature(fineBlocks: readonly string[]): PreviewCurvature {
  const tensors = [...Array.from({ length: LAYERS }, (_, l) => layerTensors(l)).flat(), 'model.norm.weight', 'model.embed_tokens.weight', 'lm_head.weight'];
  const coarse = editDirections(tensors, defaultResolvedSettings({ think: [], special: [] }), { think: [7, 8], special: [9] }, { gate: null, projector: () => undefined }).directions;
  const experts = fineBlocks.filter((key) => key.startsWith('expert.')).map((key) => ({ key, group: 'expert' as const, coefficient: 'alpha-scale' as const }));
  const directions = [...coarse, ...experts];
  const size = directions.length;
  const rank = Number(args.rank);
  const vector = (n = size, scale = 1) => Array.from({ length: n }, () => (random() - 0.5) * scale);
  const symmetric = () => {
    const m = new Array<number>(size * size).fill(0);
    for (let i = 0; i < size; i++) for (let j = 0; j <= i; j++) m[i * size + j] = m[j * size + i] = random() * 0.01;
    return m;
  };
  const lowRank = () => ({ diagonal: vector(size, 0.01), vectors: vector(size * rank, 1 / Math.sqrt(size)), weights: vector(rank), dropped: 0 });
  const matrices = args.form === 'dense' ? { hessian: { reasoning: symmetric(), agent: symmetric() } } : { lowRank: { reasoning: lowRank(), agent: lowRank() } };
  const routers = Array.from({ length: LAYERS }, (_, l) => ({
    name: `model.layers.${l}.mlp.gate.weight`, shape: [EXPERTS, WIDTH],
    products: { dot: 0.9, normI: 1, normT: 1.1 }, gradThetaI: { reasoning: random(), agent: random() }, gradThetaT: { reasoning: random(), agent: random() },
  }));
  return {
    basis: { keepQuantile: 0.5, tau: 0.03, steepness: defaultSteepness(0.03), threshold: true, gsp: true },
    anchorSpecial: { thinkRows: 0.8, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3 },
    directions,
    epsilon: new Array<number>(size).fill(0.25),
    firstOrder: { reasoning: vector(), agent: vector() },
    ...matrices,
    routers,
    anchors: [{ alpha: 0.25, measured: { reasoning: -0.5, agent: 1e-4 } }, { alpha: 1, measured: { reasoning: -1.5, agent: 0.1 } }],
    split: 'train',
  };
}

type Change = 'alpha' | 'tau/k' | 'toggles' | 'overrides';

function nextSettings(previous: PreviewSettings, blocks: readonly string[]): { change: Change; settings: PreviewSettings } {
  const change = (['alpha', 'tau/k', 'toggles', 'overrides'] as const)[Math.floor(random() * 4)] as Change;
  switch (change) {
    case 'alpha': return { change, settings: { ...previous, alpha: random() } };
    case 'tau/k': return { change, settings: { ...previous, tau: 0.005 + random() * 0.2, steepness: random() < 0.5 ? defaultSteepness(previous.tau) : 10 + random() * 300 } };
    case 'toggles': return {
      change,
      settings: { ...previous, stages: { threshold: random() < 0.8, gate: random() < 0.8, gsp: random() < 0.8 }, granularity: random() < 0.5 ? 'coarse' : 'fine' },
    };
    case 'overrides': return {
      change,
      settings: { ...previous, overrideScales: Object.fromEntries(Array.from({ length: Math.floor(random() * 6) }, () => [blocks[Math.floor(random() * blocks.length)] as string, random() * 2])) },
    };
  }
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

type PreviewClass = typeof InstantPreview;

/** InstantPreview as it was at `rev`: that commit's engine/ in a temporary folder (engine-at-rev.ts), imported from there. */
async function previewAt(rev: string, root: string): Promise<PreviewClass> {
  const tree = await treeAt(rev, root, ['engine']);
  const module = (await import(pathToFileURL(join(tree, 'engine', 'analysis', 'preview.ts')).href)) as { InstantPreview: PreviewClass };
  return module.InstantPreview;
}

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`load average at start: ${load()} (1, 5, 15 min)`);
const beforeRoot = args.before === undefined ? null : await mkdtemp(join(tmpdir(), 'crane-bench-preview-'));
const Before = args.before === undefined || beforeRoot === null ? null : await previewAt(args.before, beforeRoot);
const started = performance.now();
const { tensors, gate, coefficients } = buildAnalysis();
const built = performance.now();
const curvature = syntheticCurvature(new InstantPreview(coefficients, gate).fineBlocks);
const preview = new InstantPreview(coefficients, gate, curvature);
const loaded = performance.now();
const directions = coefficients.directions.length / 6;
console.log(`synthetic analysis: ${LAYERS} layers, ${tensors} tensors, ${coefficients.entries.length} preview entries, ${directions} directions (r = ${RANK}), ${curvature.directions.length} curvature directions (${args.form}${args.form === 'dense' ? '' : `, rank ${args.rank}`}), ${curvature.routers.length} routers`);
console.log(`build ${((built - started) / 1000).toFixed(1)} s (not part of the preview), load ${(loaded - built).toFixed(1)} ms`);

// The same settings through a preview without curvature, alternately, so one run gives the curvature's cost on the same (possibly loaded) machine;
// with --before, the same again through the preview as it was at that commit.
const variants: (readonly [string, InstantPreview])[] = [['curvature', preview], ['1st only', new InstantPreview(coefficients, gate)]];
if (Before !== null) variants.push([`curvature @${args.before}`, new Before(coefficients, gate, curvature)], [`1st only @${args.before}`, new Before(coefficients, gate)]);
let settings: PreviewSettings = { ...defaultResolvedSettings({ think: [], special: [] }), alpha: 0.15 };
const times = new Map<string, number[]>();
const record = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
for (let i = 0; i < 200; i++) {
  const warm = nextSettings(settings, preview.coarseBlocks).settings; // warm-up (JIT)
  for (const [, instance] of variants) instance.evaluate(warm);
}
let largestDifference = 0;
for (let i = 0; i < Number(args.calls); i++) {
  const next = nextSettings(settings, settings.granularity === 'fine' ? preview.fineBlocks : preview.coarseBlocks);
  settings = next.settings;
  const answers = new Map<string, { deltaLossReasoning: number; deltaLossAgent: number }>();
  // A different variant first each call: the garbage the others leave is collected in whichever runs next.
  for (const [variant, instance] of [...variants.slice(i % variants.length), ...variants.slice(0, i % variants.length)]) {
    const t0 = performance.now();
    answers.set(variant, instance.evaluate(settings));
    const ms = performance.now() - t0;
    record(`all ${variant}`, ms);
    record(`${next.change} ${variant}`, ms);
  }
  for (const [variant, answer] of answers) {
    const now = answers.get(variant.replace(/ @.*$/, ''));
    if (variant.includes(' @') && now !== undefined) {
      for (const loss of ['deltaLossReasoning', 'deltaLossAgent'] as const) largestDifference = Math.max(largestDifference, Math.abs(answer[loss] - now[loss]) / Math.max(1e-12, Math.abs(answer[loss])));
    }
  }
}
for (const [kind, list] of [...times].sort(([a], [b]) => a.localeCompare(b))) {
  const sorted = [...list].sort((a, b) => a - b);
  console.log(`${kind.padEnd(32)} n=${String(sorted.length).padStart(5)}  p50 ${percentile(sorted, 0.5).toFixed(3)} ms  p95 ${percentile(sorted, 0.95).toFixed(3)} ms  max ${(sorted.at(-1) ?? 0).toFixed(3)} ms`);
}
if (Before !== null) console.log(`largest relative difference between the answers now and @${args.before}: ${largestDifference.toExponential(2)}`);
console.log(`load average at end: ${load()}`);
if (beforeRoot !== null) await rm(beforeRoot, { recursive: true, force: true });
