/**
 * `npm run demo:eval`: the demo pair's behaviour table — tool-call validity, accuracy (overall
 * and per task family) and mean generated tokens on the held-out evaluation set, for Instruct,
 * Thinking, and a merge of the two by every method of the methods table
 * (protocol/method-parameters.ts) at its reference settings (DEFAULT_BASELINES: λ/t 0.3, …; CRANE
 * with its defaults), each made through the same export path as `crane merge`. AIM-TA and
 * AIM-TIES read the analysis' AIM importance, LEWIS both models' importance measured on the
 * analysis' prompts (pipeline/importance-source.ts). A method that needs a Base checkpoint (RAIN)
 * is a "needs Base" row: the demo pair has none.
 *
 *   node --import tsx tools/demo/eval.ts [--demo DIR] [--endpoints-only] [--json] [--limit N] [MODEL_DIR ...]
 *
 * --limit N evaluates about N of the tasks (every k-th). Extra model folders are added as rows.
 * The analysis and LEWIS's importance files are cached (see demo-analysis.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ModelTokenizer } from '../../engine/calibration/tokenizer.ts';
import { formatTable } from '../../engine/cli/format.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { evaluateCheckpoint, type DemoMetrics } from '../../engine/demo/evaluate.ts';
import { readEvalSet } from '../../engine/demo/eval-set.ts';
import { exportMerge } from '../../engine/export/export-checkpoint.ts';
import { recipeMethodSchema, type RecipeMethod } from '../../engine/export/recipe.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { tokenRowsOf } from '../../engine/pipeline/edit-method.ts';
import { analysisImportance } from '../../engine/pipeline/importance-source.ts';
import { resolveArtifactsDir } from '../../engine/pipeline/pipeline-folder.ts';
import { METHOD_NAMES, METHODS } from '../../engine/protocol/method-parameters.ts';
import { DEFAULT_BASELINES, defaultResolvedSettings } from '../../engine/protocol/settings-defaults.ts';
import { initBackend } from '../../engine/tensor/backend.ts';
import { DEFAULT_DEMO_ANALYSIS_DIR, runDemoAnalysis } from './demo-analysis.ts';

const { values: args, positionals } = parseArgs({
  options: { demo: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' }, 'endpoints-only': { type: 'boolean' } },
  allowPositionals: true,
});
const paths = demoPaths(args.demo);
const progress = (line: string) => process.stderr.write(`${line}\n`);
await initBackend();
const all = await readEvalSet(paths.eval);
const tasks = args.limit === undefined ? all : all.filter((_, i) => i % Math.ceil(all.length / Number(args.limit)) === 0);
const models: [string, string][] = [['Instruct', paths.instruct], ['Thinking', paths.thinking], ...positionals.map((dir): [string, string] => [basename(dir), dir])];

/** A measured model, or a method this pair cannot run (the input it lacks). */
type Row = { readonly model: string; readonly metrics: DemoMetrics } | { readonly model: string; readonly needs: 'Base' };

const mergesDir = await mkdtemp(join(tmpdir(), 'crane-demo-merges-'));
try {
  const merges = args['endpoints-only'] === true ? { made: [], needsBase: [] } : await exportMerges(mergesDir);
  const rows: Row[] = [];
  for (const [name, dir] of [...models, ...merges.made]) {
    rows.push({ model: name, metrics: await evaluateCheckpoint(dir, tasks, { onProgress: (done, total) => process.stderr.write(`\r${name}: ${done}/${total}`) }) });
    process.stderr.write('\n');
  }
  rows.push(...merges.needsBase.map((model) => ({ model, needs: 'Base' as const })));
  printTable(rows);
} finally {
  await rm(mergesDir, { recursive: true, force: true });
}

/** Every method of the methods table, CRANE last; the ones needing a Base checkpoint are only named. */
async function exportMerges(root: string): Promise<{ made: [string, string][]; needsBase: string[] }> {
  progress('CRANE analysis of the demo pair:');
  await runDemoAnalysis(paths, DEFAULT_DEMO_ANALYSIS_DIR, { log: progress });
  const tokens = tokenRowsOf(await ModelTokenizer.load(paths.instruct));
  const names = [...METHOD_NAMES.filter((n) => n !== 'crane'), 'crane' as const];
  const needsBase = names.filter((n) => METHODS[n].needs === 'base').map((n) => METHODS[n].label);
  const methods = names.filter((n) => METHODS[n].needs !== 'base').map((n): [string, RecipeMethod] => [
    METHODS[n].label,
    n === 'crane' ? { method: 'crane', settings: defaultResolvedSettings(tokens) } : recipeMethodSchema.parse(DEFAULT_BASELINES[n]),
  ]);
  const analysisDir = await resolveArtifactsDir(DEFAULT_DEMO_ANALYSIS_DIR);
  const [instruct, thinking] = [await Checkpoint.open(paths.instruct), await Checkpoint.open(paths.thinking)];
  try {
    const made: [string, string][] = [];
    for (const [name, method] of methods) {
      const outDir = join(root, name.replaceAll(' ', '-').toLowerCase());
      const importance = await analysisImportance(method, DEFAULT_DEMO_ANALYSIS_DIR, { onProgress: (f, text) => process.stderr.write(`\r${name} importance ${(100 * f).toFixed(0)}% ${text}`) });
      await exportMerge({ instruct, thinking, method, analysisDir, dtype: 'F32', outDir, ...(importance === undefined ? {} : { importance }) });
      made.push([name, outDir]);
    }
    return { made, needsBase };
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

function printTable(rows: readonly Row[]): void {
  const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`);
  if (args.json === true) {
    console.log(JSON.stringify({ tasks: tasks.length, rows }, null, 2));
    return;
  }
  console.log(`${tasks.length} held-out tasks (${paths.eval})\n`);
  console.log(formatTable(
    ['model', 'tool-call validity', 'accuracy', 'arithmetic', 'lookup', 'tool', 'chat', 'mean tokens'],
    rows.map((row) => {
      if ('needs' in row) return [row.model, `needs ${row.needs}`, '', '', '', '', '', ''];
      const m = row.metrics;
      return [row.model, pct(m.toolCallValidity), pct(m.accuracy), pct(m.accuracyByFamily.arithmetic), pct(m.accuracyByFamily.lookup), pct(m.accuracyByFamily.tool), pct(m.accuracyByFamily.chat), m.meanGeneratedTokens.toFixed(1)];
    }),
  ));
}
