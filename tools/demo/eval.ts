/**
 * `npm run demo:eval`: the demo pair's behaviour table AT MATCHED REASONING GAIN. Each merge
 * method's strength (λ, SLERP's t, CRANE's α: every method's --alpha) is searched so that its
 * measured ΔL_R on the held-out reasoning prompts (Verify on eval-reasoning.jsonl /
 * eval-tool-use.jsonl, the Thinking / Instruct models' own decodes as targets) equals one target:
 * by default CRANE's at its default α 0.25 (--match-reasoning=X sets it; X is negative, so it is
 * written with '='). Then every merge is exported through `crane merge`'s path and greedy-decoded
 * on the held-out tasks: tool-call validity, accuracy (overall and per task family), mean
 * generated tokens, beside its ΔL_R and ΔL_A.
 * Instruct is ΔL 0; Thinking's ΔL is the whole task vector (λ 1). RAIN (Base + its calibration
 * files, demo-merges.ts) picks its own α, so its row is at its own ΔL_R; without a Base it is a
 * "needs Base" row.
 *
 * --pair moe / looped evaluates the MoE / looped demo pair (assets/demo-moe, assets/demo-looped),
 * each with its own analysis cache.
 * --methods: task_arithmetic,ties,slerp,crane by default; all = every method with a strength.
 * --limit N evaluates about N of the tasks (every k-th). Extra model folders are added as rows.
 * The analysis, its decodes and LEWIS's importance files are cached (see demo-analysis.ts).
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ModelTokenizer } from '../../engine/calibration/tokenizer.ts';
import { formatTable } from '../../engine/cli/format.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { DEMO_LOOPED_ROOT } from '../../engine/demo/looped-layout.ts';
import { DEMO_MOE_ROOT } from '../../engine/demo/moe-layout.ts';
import { evaluateCheckpoint, type DemoMetrics } from '../../engine/demo/evaluate.ts';
import { readEvalSet } from '../../engine/demo/eval-set.ts';
import { tokenRowsOf, type EditMethod } from '../../engine/pipeline/edit-method.ts';
import { verifyEdit, type LossPair } from '../../engine/pipeline/verify.ts';
import { METHOD_NAMES, METHODS } from '../../engine/protocol/method-parameters.ts';
import { DEFAULT_ALPHA } from '../../engine/protocol/settings-defaults.ts';
import { initBackend } from '../../engine/tensor/backend.ts';
import { exitWithUsageError, parseCli, type CliSpec } from '../cli-args.ts';
import { demoAnalysisDir, runDemoAnalysis } from './demo-analysis.ts';
import { demoEdit, demoRainInputs, exportDemoMerge, exportDemoRain, RAIN_SETTINGS, strengthLabel, type DemoMergeContext, type StrengthMethod } from './demo-merges.ts';
import { matchStrength } from './matched-strength.ts';

const CLI = {
  usage: [
    'node --import tsx tools/demo/eval.ts [--pair dense|moe|looped] [--demo DIR] [--methods all|a,b,…] [--match-reasoning=X] [--endpoints-only] [--json] [--limit N] [MODEL_DIR ...]',
    'npm run demo:eval -- [the same arguments]',
  ],
  about: 'Extra MODEL_DIR folders are evaluated as rows of their own.',
  options: {
    pair: { type: 'string', value: 'dense|moe|looped', default: 'dense', help: 'which demo pair (each has its own analysis cache)' },
    demo: { type: 'string', value: 'DIR', help: "read the pair from the demo folder DIR instead of the pair's assets/demo* folder" },
    methods: { type: 'string', value: 'all|a,b,…', default: 'task_arithmetic,ties,slerp,crane', help: 'merge methods to match and evaluate (all: every method with a strength)' },
    'match-reasoning': { type: 'string', value: 'X', help: "target ΔL_R, negative, so written --match-reasoning=X (default: CRANE's at α 0.25)" },
    'endpoints-only': { type: 'boolean', help: 'evaluate only Instruct, Thinking and MODEL_DIRs, no merges' },
    json: { type: 'boolean', help: 'print the task count, the target and the rows as JSON instead of a table' },
    limit: { type: 'string', value: 'N', help: 'evaluate about N of the tasks (every k-th)' },
  },
  allowPositionals: true,
} as const satisfies CliSpec;
const { values: args, positionals } = parseCli(CLI);
const PAIR_ROOTS: Readonly<Record<string, string | undefined>> = { dense: undefined, moe: DEMO_MOE_ROOT, looped: DEMO_LOOPED_ROOT };
if (!Object.hasOwn(PAIR_ROOTS, args.pair)) exitWithUsageError(CLI, `--pair must be dense, moe or looped (got ${args.pair})`);
const paths = demoPaths(args.demo ?? PAIR_ROOTS[args.pair]);
const analysisDir = demoAnalysisDir(args.pair);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const strengthMethods = METHOD_NAMES.filter((n): n is StrengthMethod => n !== 'rain');
const methods = args.methods === 'all' ? strengthMethods : args.methods.split(',').map((name) => {
  if (!(strengthMethods as readonly string[]).includes(name)) exitWithUsageError(CLI, `--methods: "${name}" is not one of ${strengthMethods.join(', ')}`);
  return name as StrengthMethod;
});
await initBackend();
const all = await readEvalSet(paths.eval);
const tasks = args.limit === undefined ? all : all.filter((_, i) => i % Math.ceil(all.length / Number(args.limit)) === 0);

/** A measured model (its strength and ΔL when it is a merge), or a method this pair cannot run. */
interface Measured { readonly model: string; readonly dir: string; readonly strength?: string; readonly delta?: LossPair }
type Row = (Measured & { readonly metrics: DemoMetrics }) | { readonly model: string; readonly needs: 'Base' };

const mergesDir = await mkdtemp(join(tmpdir(), 'crane-demo-merges-'));
try {
  const endpoints: Measured[] = [{ model: 'Instruct', dir: paths.instruct, delta: { reasoning: 0, agent: 0 } }, { model: 'Thinking', dir: paths.thinking }];
  const extra = positionals.map((dir): Measured => ({ model: basename(dir), dir }));
  const merged = args['endpoints-only'] === true ? { models: [], target: null } : await matchedMerges(mergesDir, endpoints);
  const rows: Row[] = [];
  for (const model of [...endpoints, ...merged.models, ...extra]) {
    if ('needs' in model) rows.push(model);
    else rows.push({ ...model, metrics: await evaluateCheckpoint(model.dir, tasks, { onProgress: (done, total) => process.stderr.write(`\r${model.model}: ${done}/${total}`) }) });
    process.stderr.write('\n');
  }
  printTable(rows, merged.target);
} finally {
  await rm(mergesDir, { recursive: true, force: true });
}

/** Each chosen method at the strength whose ΔL_R matches the target, exported; RAIN at its own α. */
async function matchedMerges(root: string, endpoints: Measured[]): Promise<{ models: (Measured | { model: string; needs: 'Base' })[]; target: { value: number; source: string } }> {
  progress('CRANE analysis of the demo pair:');
  await runDemoAnalysis(paths, analysisDir, { log: progress });
  const context: DemoMergeContext = { paths, analysisDir, tokens: tokenRowsOf((await ModelTokenizer.load(paths.instruct)).source.tokenizerJson) };
  const evaluation = { source: 'files', reasoning: paths.evalReasoning, agent: paths.evalToolUse } as const;
  const verify = async (method: EditMethod, label: string) => {
    const { measured } = await verifyEdit({ analysisDir: context.analysisDir, method, evaluation, ...(method.method === 'rain' ? { rain: demoRainInputs(paths) } : {}) });
    progress(`  ${label}: ΔL_R ${signed(measured.reasoning)}, ΔL_A ${signed(measured.agent)}`);
    return measured;
  };
  const at = async (name: StrengthMethod, strength: number) => verify(await demoEdit(context, name, strength), `${METHODS[name].label} ${strengthLabel(name)} ${strength.toFixed(4)}`);
  // θ_I + 1·δ is the Thinking model itself.
  endpoints[1] = { ...(endpoints[1] as Measured), delta: await at('task_arithmetic', 1) };
  const given = args['match-reasoning'];
  const target = given === undefined
    ? { value: (await at('crane', DEFAULT_ALPHA)).reasoning, source: `CRANE at its default α ${DEFAULT_ALPHA}` }
    : { value: Number(given), source: '--match-reasoning' };
  const models: (Measured | { model: string; needs: 'Base' })[] = [];
  for (const name of methods) {
    const losses = new Map<number, LossPair>();
    const start = name === 'crane' ? DEFAULT_ALPHA : 0.3;
    const found = await matchStrength(async (s) => {
      const measured = await at(name, s);
      losses.set(s, measured);
      return measured.reasoning;
    }, { target: target.value, start, max: name === 'slerp' ? 1 : 2, tolerance: 0.03, maxMeasurements: 7 });
    const outDir = join(root, name);
    await exportDemoMerge(context, name, found.strength, outDir);
    const label = `${strengthLabel(name)} ${found.strength.toFixed(3)}${found.reached ? '' : ' (max)'}`;
    models.push({ model: METHODS[name].label, dir: outDir, strength: label, delta: losses.get(found.strength) as LossPair });
  }
  if (await hasRainInputs()) {
    const delta = await verify(RAIN_SETTINGS, 'RAIN (own α)');
    await exportDemoRain(context, join(root, 'rain'));
    models.push({ model: 'RAIN', dir: join(root, 'rain'), strength: 'own α (QP)', delta });
  } else {
    models.push({ model: 'RAIN', needs: 'Base' });
  }
  return { models, target };
}

async function hasRainInputs(): Promise<boolean> {
  const present = await Promise.all([join(paths.base, 'config.json'), paths.rainReasoning, paths.rainInstructions].map((p) => access(p).then(() => true, () => false)));
  return present.every(Boolean);
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${Math.abs(x) < 1e-3 && x !== 0 ? x.toExponential(1) : x.toFixed(3)}`;
}

function printTable(rows: readonly Row[], target: { value: number; source: string } | null): void {
  const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`);
  if (args.json === true) {
    console.log(JSON.stringify({ tasks: tasks.length, target, rows }, null, 2));
    return;
  }
  console.log(`${tasks.length} held-out tasks (${paths.eval})`);
  if (target !== null) console.log(`merges matched at ΔL_R ${signed(target.value)} (${target.source}), measured on the held-out prompts\n`);
  console.log(formatTable(
    ['model', 'strength', 'ΔL_R', 'ΔL_A', 'tool-call validity', 'accuracy', 'arithmetic', 'lookup', 'tool', 'chat', 'mean tokens'],
    rows.map((row) => {
      if ('needs' in row) return [row.model, `needs ${row.needs}`, '', '', '', '', '', '', '', '', ''];
      const m = row.metrics;
      const delta = row.delta === undefined ? ['', ''] : [signed(row.delta.reasoning), signed(row.delta.agent)];
      return [row.model, row.strength ?? '', ...delta, pct(m.toolCallValidity), pct(m.accuracy), pct(m.accuracyByFamily.arithmetic), pct(m.accuracyByFamily.lookup), pct(m.accuracyByFamily.tool), pct(m.accuracyByFamily.chat), m.meanGeneratedTokens.toFixed(1)];
    }),
  ));
}
