/**
 * `npm run demo:eval`: the demo pair's behaviour table — tool-call validity, accuracy (overall
 * and per task family) and mean generated tokens of each model on the held-out evaluation set.
 *
 *   node --import tsx tools/demo/eval.ts [--demo DIR] [--json] [--limit N] [MODEL_DIR ...]
 *
 * Extra model folders (merges exported by `crane merge`) are added as rows.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable } from '../../engine/cli/format.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { evaluateCheckpoint, type DemoMetrics } from '../../engine/demo/evaluate.ts';
import { readEvalSet } from '../../engine/demo/eval-set.ts';
import { initBackend } from '../../engine/tensor/backend.ts';

const { values: args, positionals } = parseArgs({ options: { demo: { type: 'string' }, json: { type: 'boolean' }, limit: { type: 'string' } }, allowPositionals: true });
const paths = demoPaths(args.demo);
await initBackend();
const all = await readEvalSet(paths.eval);
const tasks = args.limit === undefined ? all : all.filter((_, i) => i % Math.ceil(all.length / Number(args.limit)) === 0);
const models: [string, string][] = [['Instruct', paths.instruct], ['Thinking', paths.thinking], ...positionals.map((dir): [string, string] => [basename(dir), dir])];
const rows: { model: string; metrics: DemoMetrics }[] = [];
for (const [name, dir] of models) {
  const metrics = await evaluateCheckpoint(dir, tasks, { onProgress: (done, total) => process.stderr.write(`\r${name}: ${done}/${total}`) });
  process.stderr.write('\n');
  rows.push({ model: name, metrics });
}
const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)}%`);
if (args.json === true) console.log(JSON.stringify({ tasks: tasks.length, rows }, null, 2));
else {
  console.log(`${tasks.length} held-out tasks (${paths.eval})\n`);
  console.log(formatTable(
    ['model', 'tool-call validity', 'accuracy', 'arithmetic', 'lookup', 'tool', 'chat', 'mean tokens'],
    rows.map(({ model, metrics: m }) => [model, pct(m.toolCallValidity), pct(m.accuracy), pct(m.accuracyByFamily.arithmetic), pct(m.accuracyByFamily.lookup), pct(m.accuracyByFamily.tool), pct(m.accuracyByFamily.chat), m.meanGeneratedTokens.toFixed(1)]),
  ));
}
