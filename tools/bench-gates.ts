/**
 * The gates stage alone, timed, on an analysis folder whose projectors and gradients are done:
 * one process per engine (this checkout, and with --before the engine at commit REV, extracted
 * by engine-at-rev.ts), each printing wall, CPU and peak RSS; the result files of every run are
 * compared byte for byte with the first run's.
 *
 * DIR is only read: each run works in a fresh folder holding a copy of DIR/pipeline.json and a
 * link to DIR/stages, and writes its own result/ there.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as AnalysisStore from '../engine/analysis/analysis-store.ts';
import type * as CheckpointModule from '../engine/io/checkpoint.ts';
import type * as GatesStage from '../engine/pipeline/gates-stage.ts';
import type * as PipelineFolder from '../engine/pipeline/pipeline-folder.ts';
import type * as Progress from '../engine/pipeline/progress.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';

const RESULT_FILES = ['gate-table.json', 'preview-coefficients.safetensors'];

interface RunReport {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
}

/** The child: runGates of the engine under `engine` (typed as this checkout's) on `work`, then writeAnalysis into work/result. */
async function runPhase(engine: string, work: string, workers: string | undefined): Promise<void> {
  const { Checkpoint } = await import(join(engine, 'engine/io/checkpoint.ts')) as typeof CheckpointModule;
  const { runGates } = await import(join(engine, 'engine/pipeline/gates-stage.ts')) as typeof GatesStage;
  const { writeAnalysis } = await import(join(engine, 'engine/analysis/analysis-store.ts')) as typeof AnalysisStore;
  const folder = await import(join(engine, 'engine/pipeline/pipeline-folder.ts')) as typeof PipelineFolder;
  const { StageClock } = await import(join(engine, 'engine/pipeline/progress.ts')) as typeof Progress;
  const record = await folder.readPipelineRecord(work);
  const [instruct, thinking] = [await Checkpoint.open(record.instruct), await Checkpoint.open(record.thinking)];
  const settings = workers === undefined ? record.settings : { ...record.settings, workers: Number(workers) };
  const paths = folder.pipelinePaths(work);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { artifacts } = await runGates({ instruct, thinking, inputs: record.inputs, settings, paths, callbacks: {} }, new StageClock('gates', () => {}));
  const used = process.cpuUsage(cpu);
  const report: RunReport = { wallSeconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
  await writeAnalysis(paths.result, artifacts, folder.resultKey(record.inputs, record.settings));
  await Promise.all([instruct.close(), thinking.close()]);
  console.log(JSON.stringify(report));
}

async function bench(analysis: string, before: string | undefined, workers: string | undefined): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'crane-bench-gates-'));
  try {
    const engines = [{ label: 'now', dir: join(import.meta.dirname, '..') }];
    if (before !== undefined) engines.unshift({ label: `@${before}`, dir: await treeAt(before, root, ['engine', 'package.json']) });
    let reference: Buffer[] | undefined;
    console.log(`gates stage alone on ${analysis} (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    for (const engine of engines) {
      const work = join(root, `work-${engine.label}`);
      await mkdir(work);
      await cp(join(analysis, 'pipeline.json'), join(work, 'pipeline.json'));
      await symlink(join(analysis, 'stages'), join(work, 'stages'));
      const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--run', engine.dir, work, ...(workers === undefined ? [] : [workers])], { encoding: 'utf8', cwd: engine.dir });
      if (child.status !== 0) throw new Error(`${engine.label}: the gates run failed:\n${child.stderr}`);
      const report = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as RunReport;
      const files = await Promise.all(RESULT_FILES.map((file) => readFile(join(work, 'result', file))));
      reference ??= files;
      const same = files.every((bytes, k) => bytes.equals(reference?.[k] as Buffer));
      console.log(`${engine.label.padEnd(12)} wall ${report.wallSeconds.toFixed(1)} s  CPU ${report.cpuSeconds.toFixed(1)} s  peak RSS ${(report.peakRssBytes / 2 ** 20).toFixed(0)} MiB  result files ${same ? 'identical to the first run' : 'DIFFER from the first run'}`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const CLI = {
  usage: ['npm run bench:gates -- --analysis DIR [--before REV] [--workers N]', 'node --import tsx tools/bench-gates.ts --run ENGINE_ROOT WORK [N]'],
  options: {
    analysis: { type: 'string', value: 'DIR', help: 'analysis folder whose projectors and gradients stages are done (only read; required)' },
    before: { type: 'string', value: 'REV', help: 'also run the gates stage with the engine at commit REV, first' },
    workers: { type: 'string', value: 'N', help: "worker threads (default: the analysis' setting)" },
    run: { type: 'boolean', help: 'one run of the engine under ENGINE_ROOT on the folder WORK, with N workers: the bench starts these' },
  },
  allowPositionals: true,
} as const satisfies CliSpec;
const { values, positionals } = parseCli(CLI);
if (values.run === true) {
  const [engine, work, workers] = positionals;
  if (engine === undefined || work === undefined || positionals.length > 3) exitWithUsageError(CLI, '--run takes ENGINE_ROOT WORK [N]');
  await runPhase(engine, work, workers);
} else {
  if (values.analysis === undefined || positionals.length > 0) exitWithUsageError(CLI, 'the bench takes --analysis DIR and no positional arguments');
  await bench(values.analysis, values.before, values.workers);
}
