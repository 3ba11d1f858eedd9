/**
 * `npm run demo:eval`: the demo pair's behaviour table — tool-call validity, accuracy (overall
 * and per task family) and mean generated tokens on the held-out evaluation set, for Instruct,
 * Thinking, and merges of the two made through the same export path as `crane merge`:
 * Task Arithmetic, TIES, SLERP (λ/t 0.3, the reference values) and CRANE with its defaults.
 *
 *   node --import tsx tools/demo/eval.ts [--demo DIR] [--endpoints-only] [--json] [--limit N] [MODEL_DIR ...]
 *
 * Extra model folders are added as rows. The CRANE analysis is cached (see demo-analysis.ts).
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
import { exportMerge, type MergeExportOptions } from '../../engine/export/export-checkpoint.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { tokenRowsOf } from '../../engine/pipeline/edit-method.ts';
import { resolveArtifactsDir } from '../../engine/pipeline/pipeline-folder.ts';
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

const mergesDir = await mkdtemp(join(tmpdir(), 'crane-demo-merges-'));
try {
  if (args['endpoints-only'] !== true) models.push(...(await exportMerges(mergesDir)));
  const rows: { model: string; metrics: DemoMetrics }[] = [];
  for (const [name, dir] of models) {
    rows.push({ model: name, metrics: await evaluateCheckpoint(dir, tasks, { onProgress: (done, total) => process.stderr.write(`\r${name}: ${done}/${total}`) }) });
    process.stderr.write('\n');
  }
  printTable(rows);
} finally {
  await rm(mergesDir, { recursive: true, force: true });
}

/** Exports the four merges (F32, like the demo checkpoints) and returns their folders. */
async function exportMerges(root: string): Promise<[string, string][]> {
  progress('CRANE analysis of the demo pair:');
  await runDemoAnalysis(paths, DEFAULT_DEMO_ANALYSIS_DIR, { log: progress });
  const tokens = tokenRowsOf(await ModelTokenizer.load(paths.instruct));
  const methods: [string, MergeExportOptions['method']][] = [
    ['Task Arithmetic', DEFAULT_BASELINES.task_arithmetic],
    ['TIES', DEFAULT_BASELINES.ties],
    ['SLERP', DEFAULT_BASELINES.slerp],
    ['CRANE', { method: 'crane', settings: defaultResolvedSettings(tokens) }],
  ];
  const analysisDir = await resolveArtifactsDir(DEFAULT_DEMO_ANALYSIS_DIR);
  const [instruct, thinking] = [await Checkpoint.open(paths.instruct), await Checkpoint.open(paths.thinking)];
  try {
    const out: [string, string][] = [];
    for (const [name, method] of methods) {
      const outDir = join(root, name.replaceAll(' ', '-').toLowerCase());
      await exportMerge({ instruct, thinking, method, analysisDir, dtype: 'F32', outDir });
      out.push([name, outDir]);
    }
    return out;
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

function printTable(rows: readonly { model: string; metrics: DemoMetrics }[]): void {
  const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`);
  if (args.json === true) {
    console.log(JSON.stringify({ tasks: tasks.length, rows }, null, 2));
    return;
  }
  console.log(`${tasks.length} held-out tasks (${paths.eval})\n`);
  console.log(formatTable(
    ['model', 'tool-call validity', 'accuracy', 'arithmetic', 'lookup', 'tool', 'chat', 'mean tokens'],
    rows.map(({ model, metrics: m }) => [model, pct(m.toolCallValidity), pct(m.accuracy), pct(m.accuracyByFamily.arithmetic), pct(m.accuracyByFamily.lookup), pct(m.accuracyByFamily.tool), pct(m.accuracyByFamily.chat), m.meanGeneratedTokens.toFixed(1)]),
  ));
}
