/**
 * `npm run bench:export`: the engine's export against `cp` of the same bytes and against a plain
 * numpy memmap merge of the same pair, wall time, CPU time and peak RSS of each, in one run.
 *
 * DIR holds instruct/ and thinking/ (BF16 safetensors); without it, tools/qwen3-tiny-pair.ts
 * writes a Qwen3-0.6B-shaped pair (real 151,936-row embedding and lm_head) cut to --layers into
 * a temp folder. Every input file is read once first, so all runs start from a warm page cache.
 * Rows: cp -r of Instruct (the output's size), then the same followed by `sync` of the copied
 * files (the engine fsyncs its output; cp does not); numpy task arithmetic, λ = 0.3
 * (tools/bench_export_helper.py merge), without and with an fsync of its output;
 * `crane merge --method task_arithmetic --alpha 0.3`; and `crane merge --method crane --no-gate
 * --no-gsp` (thresholding, no analysis needed). Each runs as its own process measured by the
 * helper (getrusage of the child and its children), and the engine's task arithmetic output is
 * compared value by value with numpy's. The load average is printed before and after: the
 * machine may be shared, and ratios within one run are what compare.
 *
 * --before REV also runs both engine rows with the engine as it was at commit REV (its tree
 * extracted by `git archive` into the temp folder, sharing this node_modules), in the same run
 * and on the same warm pair, and compares its task arithmetic and CRANE outputs with today's bit for bit:
 * before/after figures of an export change measured under one machine load.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';
import { largestF32Bytes } from './memory-report.ts';

const PYTHON = '/usr/bin/python3';
const HELPER = join(import.meta.dirname, 'bench_export_helper.py');
const CRANE = join(import.meta.dirname, '..', 'bin', 'crane.mjs');
const LAMBDA = '0.3';

interface Usage {
  readonly wall_s: number;
  readonly cpu_s: number;
  readonly max_rss_bytes: number;
}

const CLI = {
  usage: ['npm run bench:export -- [--pair DIR] [--layers 2] [--before REV]'],
  about: 'Prints wall s, CPU s, MiB/s and peak RSS of cp -r, numpy memmap task arithmetic and crane merge (task arithmetic, CRANE without gate and GSP), with ratios, and the load average.',
  options: {
    pair: { type: 'string', value: 'DIR', help: 'a pair to export: DIR/instruct and DIR/thinking (BF16 safetensors); default: a Qwen3-0.6B-shaped pair written to a temp folder' },
    layers: { type: 'string', value: 'N', default: '2', help: 'decoder layers of that written pair (ignored with --pair)' },
    before: { type: 'string', value: 'REV', help: "also run both engine rows with the engine at commit REV and compare its outputs with today's bit for bit" },
  },
} as const satisfies CliSpec;
const { values } = parseCli(CLI);
if (!(Number.isSafeInteger(Number(values.layers)) && Number(values.layers) >= 1)) exitWithUsageError(CLI, `--layers must be a positive integer; got "${values.layers}"`);
const root = await mkdtemp(join(tmpdir(), 'crane-bench-export-'));

function measure(command: readonly string[]): Usage {
  const out = execFileSync(PYTHON, [HELPER, 'measure', '--', ...command], { encoding: 'utf8' });
  return JSON.parse(out.trim()) as Usage;
}

async function safetensorsFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.safetensors')).map((f) => join(dir, f));
}

async function warm(dir: string): Promise<number> {
  let bytes = 0;
  for (const file of await safetensorsFiles(dir)) {
    bytes += (await stat(file)).size;
    await pipeline(createReadStream(file), new Writable({ write: (_chunk, _encoding, done) => done() }));
  }
  return bytes;
}

/** bin/crane.mjs of the engine at commit `rev` (engine-at-rev.ts). */
async function craneAt(rev: string): Promise<string> {
  return join(await treeAt(rev, root), 'bin', 'crane.mjs');
}

function compare(left: string, right: string): { tensors: number; values: number; differing: number } {
  return JSON.parse(execFileSync(PYTHON, [HELPER, 'compare', left, right], { encoding: 'utf8' }).trim()) as { tensors: number; values: number; differing: number };
}

async function largestTensorF32Bytes(dir: string): Promise<number> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    return largestF32Bytes(checkpoint);
  } finally {
    await checkpoint.close();
  }
}

try {
  const pair = values.pair ?? join(root, 'pair');
  if (values.pair === undefined) {
    execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'qwen3-tiny-pair.ts'), '--out', pair, '--shape', '0.6b', '--layers', values.layers], { stdio: 'ignore' });
  }
  const [instruct, thinking] = [join(pair, 'instruct'), join(pair, 'thinking')];
  const bytes = await warm(instruct);
  await warm(thinking);
  const largest = await largestTensorF32Bytes(instruct);
  const runs: { name: string; usage: Usage }[] = [];
  const run = async (name: string, out: string, command: readonly string[], keep = false) => {
    runs.push({ name, usage: measure(command) });
    if (!keep) await rm(out, { recursive: true, force: true });
  };
  const loadBefore = loadavg();
  await run('cp -r', join(root, 'cp'), ['cp', '-r', instruct, join(root, 'cp')]);
  await run('cp -r + fsync', join(root, 'cp'), ['sh', '-c', 'cp -r "$0" "$1" && sync "$1"/*', instruct, join(root, 'cp')]);
  await run('numpy memmap task arithmetic + fsync', join(root, 'numpy'), [PYTHON, HELPER, 'merge', instruct, thinking, join(root, 'numpy'), LAMBDA, '--fsync']);
  await run('numpy memmap task arithmetic', join(root, 'numpy'), [PYTHON, HELPER, 'merge', instruct, thinking, join(root, 'numpy'), LAMBDA], true);
  const engines = values.before === undefined ? [{ label: '', crane: CRANE }] : [{ label: ` @${values.before}`, crane: await craneAt(values.before) }, { label: ' now', crane: CRANE }];
  for (const { label, crane } of engines) {
    await run(`engine task arithmetic${label}`, join(root, `engine${label}`), [process.execPath, crane, 'merge', instruct, thinking, '--out', join(root, `engine${label}`), '--method', 'task_arithmetic', '--alpha', LAMBDA], true);
    await run(`engine crane (no gate, no GSP)${label}`, join(root, `crane${label}`), [process.execPath, crane, 'merge', instruct, thinking, '--out', join(root, `crane${label}`), '--method', 'crane', '--no-gate', '--no-gsp'], values.before !== undefined);
  }
  const latestLabel = (engines.at(-1) as { label: string }).label;
  const latest = join(root, `engine${latestLabel}`);
  const agreement = compare(latest, join(root, 'numpy'));

  const mb = (b: number) => (b / 2 ** 20).toFixed(0);
  const base = (name: string) => (runs.find((r) => r.name === name) as { usage: Usage }).usage;
  const [cp, cpSynced, numpy] = [base('cp -r'), base('cp -r + fsync'), base('numpy memmap task arithmetic')];
  const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(`pair      ${pair} (${mb(bytes)} MiB per checkpoint, largest tensor ${mb(largest)} MiB as f32), page cache warm`);
  console.log(`load average (1, 5, 15 min) ${load(loadBefore)} at the start, ${load(loadavg())} at the end`);
  console.log(`${'run'.padEnd(40)}${'wall s'.padStart(8)}${'CPU s'.padStart(8)}${'MiB/s'.padStart(8)}${'peak RSS MiB'.padStart(14)}${'wall/numpy'.padStart(12)}${'wall/cp'.padStart(9)}${'wall/cp+fsync'.padStart(15)}${'RSS/largest'.padStart(13)}`);
  for (const { name, usage } of runs) {
    const ratio = (to: Usage, width: number) => (usage.wall_s / to.wall_s).toFixed(2).padStart(width);
    console.log(`${name.padEnd(40)}${usage.wall_s.toFixed(2).padStart(8)}${usage.cpu_s.toFixed(2).padStart(8)}${(bytes / 2 ** 20 / usage.wall_s).toFixed(0).padStart(8)}${mb(usage.max_rss_bytes).padStart(14)}${ratio(numpy, 12)}${ratio(cp, 9)}${ratio(cpSynced, 15)}${(usage.max_rss_bytes / largest).toFixed(2).padStart(13)}`);
  }
  console.log(`agreement engine vs numpy task arithmetic: ${agreement.differing} of ${agreement.values} BF16 values differ over ${agreement.tensors} tensors`);
  if (values.before !== undefined) {
    const same = compare(latest, join(root, `engine @${values.before}`));
    console.log(`task arithmetic now vs @${values.before}: ${same.differing} of ${same.values} BF16 values differ over ${same.tensors} tensors`);
    const sameCrane = compare(join(root, `crane${latestLabel}`), join(root, `crane @${values.before}`));
    console.log(`crane now vs @${values.before}: ${sameCrane.differing} of ${sameCrane.values} BF16 values differ over ${sameCrane.tensors} tensors`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
