/**
 * Peak RSS and CPU of the work around the model in an analysis, each run in a process of its own:
 * the preflight (pair checks + finiteness scan, `assertAnalysablePair`) and, with --projectors,
 * the projectors stage alone (`runProjectors`) on a copy of a finished analysis' pipeline.json
 * and targets stage.
 *
 * --before REV runs the same with the engine at commit REV first (tools/engine-at-rev.ts), so a
 * change's before and after share one machine load, and says whether the two projectors stages
 * wrote the same projectors.safetensors and aim-importance.safetensors, byte for byte. The load
 * average is printed before each run: other processes inflate wall time, not CPU or RSS.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';

const REPOSITORY = join(import.meta.dirname, '..');
const CLI = {
  usage: ['node --import tsx tools/bench-preflight.ts INSTRUCT THINKING [--projectors ANALYSIS] [--before REV]'],
  options: {
    projectors: { type: 'string', value: 'ANALYSIS', help: "also the projectors stage alone, on a copy of a finished analysis' pipeline.json and targets stage" },
    before: { type: 'string', value: 'REV', help: 'run the same with the engine at commit REV first' },
    child: { type: 'string', value: 'JOB:TREE', help: 'run one job with the engine under TREE in this process: the bench starts these' },
    out: { type: 'string', value: 'DIR', help: 'with --child: the analysis copy the projectors job writes into' },
  },
  allowPositionals: true,
} as const satisfies CliSpec;
const { values: args, positionals } = parseCli(CLI);

interface Usage { readonly cpuSeconds: number; readonly peakRssMb: number; readonly wallSeconds: number }

/** In the child: one job with the engine under `tree`, its usage printed as the last line. */
async function runChild(tree: string, job: string): Promise<void> {
  const started = performance.now();
  const { Checkpoint } = await import(join(tree, 'engine/io/checkpoint.ts'));
  const [instruct, thinking] = await Promise.all(positionals.map((dir) => Checkpoint.open(dir)));
  if (job === 'preflight') {
    const { assertAnalysablePair } = await import(join(tree, 'engine/pipeline/preflight.ts'));
    await assertAnalysablePair(instruct, thinking);
  } else {
    const out = args.out as string;
    const { initBackend } = await import(join(tree, 'engine/tensor/backend.ts'));
    const { pipelinePaths } = await import(join(tree, 'engine/pipeline/pipeline-folder.ts'));
    const { runProjectors } = await import(join(tree, 'engine/pipeline/projectors-stage.ts'));
    const { StageClock } = await import(join(tree, 'engine/pipeline/progress.ts'));
    const record = JSON.parse(await readFile(join(out, 'pipeline.json'), 'utf8'));
    await initBackend();
    await runProjectors({ instruct, thinking, inputs: record.inputs, settings: record.settings, paths: pipelinePaths(out), callbacks: {} }, new StageClock('projectors'));
  }
  const usage = process.resourceUsage();
  const result: Usage = { cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, peakRssMb: usage.maxRSS / 1024, wallSeconds: (performance.now() - started) / 1000 };
  console.log(JSON.stringify(result));
}

function measure(tree: string, job: string, out?: string): Usage {
  const argv = ['--import', 'tsx', join(REPOSITORY, 'tools', 'bench-preflight.ts'), '--child', `${job}:${tree}`, ...(out === undefined ? [] : ['--out', out]), ...positionals];
  const lines = execFileSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 1 << 26 }).trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as Usage;
}

/** A fresh analysis folder holding only ANALYSIS' pipeline.json and targets stage. */
async function stageCopy(analysis: string, root: string, label: string): Promise<string> {
  const out = join(root, `analysis-${label}`);
  await mkdir(join(out, 'stages', 'projectors'), { recursive: true });
  await cp(join(analysis, 'pipeline.json'), join(out, 'pipeline.json'));
  await cp(join(analysis, 'stages', 'targets'), join(out, 'stages', 'targets'), { recursive: true });
  return out;
}

async function main(): Promise<void> {
  if (args.child !== undefined) {
    const [job, tree] = args.child.split(/:(.*)/s) as [string, string];
    return runChild(tree, job);
  }
  if (positionals.length !== 2) exitWithUsageError(CLI, 'expects two checkpoint folders, INSTRUCT and THINKING');
  const root = await mkdtemp(join(tmpdir(), 'crane-bench-preflight-'));
  try {
    const trees = [...(args.before === undefined ? [] : [{ label: `@${args.before}`, dir: await treeAt(args.before, root, ['engine', 'package.json']) }]), { label: 'now', dir: REPOSITORY }];
    const row = (job: string, label: string, u: Usage) =>
      console.log(`${job.padEnd(10)} ${label.padEnd(12)} peak RSS ${u.peakRssMb.toFixed(0).padStart(6)} MB  CPU ${u.cpuSeconds.toFixed(1).padStart(6)} s  wall ${u.wallSeconds.toFixed(1).padStart(6)} s  (load ${loadavg()[0]?.toFixed(1)} at the end)`);
    for (const tree of trees) {
      console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      row('preflight', tree.label, measure(tree.dir, 'preflight'));
    }
    if (args.projectors === undefined) return;
    const outs: string[] = [];
    for (const [i, tree] of trees.entries()) {
      const out = await stageCopy(args.projectors, root, String(i));
      outs.push(out);
      console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      row('projectors', tree.label, measure(tree.dir, 'projectors', out));
    }
    if (outs.length === 2) {
      for (const file of ['projectors.safetensors', 'aim-importance.safetensors']) {
        const [a, b] = await Promise.all(outs.map((out) => readFile(join(out, 'stages', 'projectors', file))));
        console.log(`${file}: ${(a as Buffer).equals(b as Buffer) ? 'identical' : 'DIFFERENT'} before and now`);
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
