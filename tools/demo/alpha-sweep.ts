/**
 * `node --import tsx tools/demo/alpha-sweep.ts [--demo ROOT] [--out DIR] [--alphas 0.05,0.1,…] [--fresh]`:
 * the first-order preview against measurement on the built-in demo pair.
 *
 * Runs the CRANE analysis of assets/demo (timed; cached stages are reused unless --fresh), then
 * for each α builds the CRANE edit (default settings) and prints predicted ΔL_R / ΔL_A next to
 * the measured ones:
 *   - "layers, train": the edit restricted to what the prediction covers (the decoder-layer
 *     tensors: think-row strength 0, so embedding/lm_head stay θ_I) on the calibration sets — the
 *     sequences the gradients are about. This is the first-order check.
 *   - "full, verify": the whole CRANE edit (think rows 0.8 of the way to θ_T, independent of
 *     α) on the analysis' evaluation set — what `crane verify` reports.
 * Decode budgets are capped at 1024 / 512 new tokens: the demo's replies are far shorter.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_DEMO_ANALYSIS_DIR, runDemoAnalysis } from './demo-analysis.ts';
import { ModelTokenizer } from '../../engine/calibration/tokenizer.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { tokenRowsOf } from '../../engine/pipeline/edit-method.ts';
import { verifyEdit } from '../../engine/pipeline/verify.ts';
import { defaultResolvedSettings } from '../../engine/protocol/settings-defaults.ts';
import { formatTable } from '../../engine/cli/format.ts';
import { initBackend } from '../../engine/tensor/backend.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';

const { values: args } = parseArgs({ options: { demo: { type: 'string' }, out: { type: 'string' }, alphas: { type: 'string', default: '0.05,0.1,0.25,0.5,1' }, fresh: { type: 'boolean' } } });
const paths = demoPaths(args.demo);
const outDir = args.out ?? DEFAULT_DEMO_ANALYSIS_DIR;
const alphas = args.alphas.split(',').map(Number);

try {
  await (await Checkpoint.open(paths.instruct)).close();
  await (await Checkpoint.open(paths.thinking)).close();
} catch (error) {
  process.stderr.write(`the demo pair is not there yet (${(error as Error).message}); run \`npm run demo:train\` first\n`);
  process.exit(1);
}

// A failure prints its message, not a stack through the wasm module's source.
process.on('uncaughtException', (error) => {
  process.stderr.write(`alpha-sweep: ${error.message}\n`);
  process.exit(1);
});

const backend = await initBackend();
process.stdout.write(`backend ${backend.name}; analysis into ${outDir}\n`);
const seconds = await runDemoAnalysis(paths, outDir, { fresh: args.fresh === true, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(`analysis wall time: ${seconds.toFixed(1)} s (target < 600 s)\n\n`);

const tokens = tokenRowsOf(await ModelTokenizer.load(paths.instruct));
const rows: string[][] = [];
const f = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
for (const alpha of alphas) {
  const settings = { ...defaultResolvedSettings(tokens), alpha };
  const train = await verifyEdit({ analysisDir: outDir, method: { method: 'crane', settings: { ...settings, special: { ...settings.special, thinkRows: 0 } } }, evaluation: { source: 'calibration' } });
  const full = await verifyEdit({ analysisDir: outDir, method: { method: 'crane', settings } });
  const predicted = train.predicted ?? { reasoning: Number.NaN, agent: Number.NaN };
  rows.push([String(alpha), f(predicted.reasoning), f(train.measured.reasoning), f(full.measured.reasoning), f(predicted.agent), f(train.measured.agent), f(full.measured.agent)]);
}
process.stdout.write(`${formatTable(['α', 'ΔL_R pred', 'ΔL_R layers, train', 'ΔL_R full, verify', 'ΔL_A pred', 'ΔL_A layers, train', 'ΔL_A full, verify'], rows)}\n`);
