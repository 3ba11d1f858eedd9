/**
 * The preview against measurement on a built-in pair.
 *
 * --pair names a built-in pair (engine/project/builtin-pairs.ts): dense is assets/demo, any other
 * NAME is the pair `demo-NAME` (moe: assets/demo-moe), analysed into its own cache folder as
 * tools/demo/eval.ts does. Runs the CRANE analysis of the pair (timed; cached stages are reused
 * unless --fresh; the curvature stage included), then for each α at the default settings prints, for ΔL_R and ΔL_A:
 *   - 1st: the preview's first-order part (every edited tensor group: layers, think rows, final norm);
 *   - +curv: the preview's total, with the curvature term;
 *   - train: measured by Verify on the calibration sets' train split — the sequences the
 *     gradients and curvature are about, so this is the check of the model;
 *   - eval: measured by Verify on the demo's held-out evaluation files (eval-reasoning.jsonl,
 *     eval-tool-use.jsonl), which the prediction has never seen.
 * Then the preview's per-group breakdown at the default α and the α range its anchors trust.
 * Decode budgets are capped at 1024 / 512 new tokens: the demo's replies are far shorter.
 */
import { exitWithUsageError, parseCli, type CliSpec } from '../cli-args.ts';
import { demoAnalysisDir, runDemoAnalysis } from './demo-analysis.ts';
import { InstantPreview } from '../../engine/analysis/preview.ts';
import { formatTable } from '../../engine/cli/format.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { BUILTIN_PAIRS } from '../../engine/project/builtin-pairs.ts';
import { DEMO_PROJECT_NAME } from '../../engine/project/demo-project.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { editTokenRows } from '../../engine/pipeline/checkpoint-tokenizer.ts';
import { loadCurvature } from '../../engine/pipeline/curvature-stage.ts';
import { loadPipelineAnalysis } from '../../engine/pipeline/pipeline-folder.ts';
import { verifyEdit } from '../../engine/pipeline/verify.ts';
import { defaultResolvedSettings } from '../../engine/protocol/settings-defaults.ts';
import { initBackend } from '../../engine/tensor/backend.ts';

const KNOWN_PAIRS = BUILTIN_PAIRS.map((p) => (p.name === DEMO_PROJECT_NAME ? 'dense' : p.name.replace(/^demo-/, '')));
const CLI = {
  usage: ['node --import tsx tools/demo/alpha-sweep.ts [--pair dense|moe|…] [--demo ROOT] [--out DIR] [--alphas 0.05,0.1,0.25,0.5,1] [--fresh]'],
  options: {
    pair: { type: 'string', value: 'NAME', default: 'dense', help: `the built-in pair: ${KNOWN_PAIRS.join(', ')}` },
    demo: { type: 'string', value: 'ROOT', help: "read the pair from the demo folder ROOT instead of the built-in pair's" },
    out: { type: 'string', value: 'DIR', help: "the analysis cache folder (default: the pair's, as tools/demo/eval.ts uses)" },
    alphas: { type: 'string', value: 'LIST', default: '0.05,0.1,0.25,0.5,1', help: 'the α values, comma-separated' },
    fresh: { type: 'boolean', help: 'rerun every analysis stage instead of reusing cached ones' },
  },
} as const satisfies CliSpec;
const { values: args } = parseCli(CLI);
const pairName = args.pair === 'dense' ? DEMO_PROJECT_NAME : `demo-${args.pair}`;
const pair = BUILTIN_PAIRS.find((p) => p.name === pairName);
if (pair === undefined) exitWithUsageError(CLI, `--pair ${args.pair}: not a built-in pair (${KNOWN_PAIRS.join(', ')})`);
const paths = args.demo === undefined ? pair.paths : demoPaths(args.demo);
const outDir = args.out ?? demoAnalysisDir(args.pair);
const alphas = args.alphas.split(',').map(Number);

try {
  await (await Checkpoint.open(paths.instruct)).close();
  await (await Checkpoint.open(paths.thinking)).close();
} catch (error) {
  process.stderr.write(`the demo pair is not there yet (${(error as Error).message}); run \`npm run demo:train -- --pair ${args.pair}\` first\n`);
  process.exit(1);
}

// A failure prints its message, not a stack through the wasm module's source.
process.on('uncaughtException', (error) => {
  process.stderr.write(`alpha-sweep: ${error.message}\n`);
  process.exit(1);
});

const backend = await initBackend();
process.stdout.write(`pair ${pair.label} (${paths.instruct}); backend ${backend.name}; analysis into ${outDir}\n`);
const seconds = await runDemoAnalysis(paths, outDir, { fresh: args.fresh === true, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(`analysis wall time: ${seconds.toFixed(1)} s\n\n`);

const { record, artifacts } = await loadPipelineAnalysis(outDir);
const curvature = await loadCurvature(outDir, record);
if (curvature === undefined) throw new Error(`${outDir} has no finished curvature stage`);
const preview = new InstantPreview(artifacts.coefficients, artifacts.gate, curvature);
const defaults = defaultResolvedSettings(await editTokenRows(paths.instruct, (message) => process.stdout.write(`${message}\n`)));
const evaluation = { source: 'files', reasoning: paths.evalReasoning, agent: paths.evalToolUse } as const;

const f = (x: number) => (Math.abs(x) < 1e-3 && x !== 0 ? x.toExponential(2) : `${x >= 0 ? '+' : ''}${x.toFixed(4)}`);
const rows: string[][] = [];
for (const alpha of alphas) {
  const settings = { ...defaults, alpha };
  const predicted = preview.evaluate(settings);
  const method = { method: 'crane', settings } as const;
  const train = (await verifyEdit({ analysisDir: outDir, method, evaluation: { source: 'calibration' } })).measured;
  const held = (await verifyEdit({ analysisDir: outDir, method, evaluation })).measured;
  rows.push([
    String(alpha),
    f(predicted.firstOrder.reasoning), f(predicted.deltaLossReasoning), f(train.reasoning), f(held.reasoning),
    f(predicted.firstOrder.agent), f(predicted.deltaLossAgent), f(train.agent), f(held.agent),
  ]);
  process.stdout.write(`α ${alpha} measured\n`);
}
process.stdout.write(`\n${formatTable(['α', 'ΔL_R 1st', 'ΔL_R +curv', 'ΔL_R train', 'ΔL_R eval', 'ΔL_A 1st', 'ΔL_A +curv', 'ΔL_A train', 'ΔL_A eval'], rows)}\n`);

const atDefault = preview.evaluate(defaults);
const breakdown = atDefault.breakdown.map((t) => [t.group, f(t.firstOrder.reasoning), f(t.secondOrder.reasoning), f(t.firstOrder.agent), f(t.secondOrder.agent)]);
process.stdout.write(`\nbreakdown at α ${defaults.alpha} (sums to ΔL_R ${f(atDefault.deltaLossReasoning)}, ΔL_A ${f(atDefault.deltaLossAgent)}):\n`);
process.stdout.write(`${formatTable(['group', 'ΔL_R 1st', 'ΔL_R 2nd', 'ΔL_A 1st', 'ΔL_A 2nd'], breakdown)}\n`);
const range = atDefault.range;
if (range !== null) {
  const anchors = range.anchors.map((a) => `α ${a.alpha}: measured ${f(a.measured.reasoning)} / ${f(a.measured.agent)}, model ${f(a.predicted.reasoning)} / ${f(a.predicted.agent)} ${a.agrees ? 'agrees' : 'off'}`);
  process.stdout.write(`\nanchors (${range.split} split, tolerance ${range.tolerance.relative * 100}% or ${range.tolerance.absolute}): ${anchors.join('; ')}\ntrusted up to α ${range.trustedUpTo}\n`);
}
