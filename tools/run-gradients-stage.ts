/**
 * Runs only the gradients stage of an analysis folder whose targets are done (the stage's folder
 * is deleted first), printing its wall time, CPU seconds (all threads), peak RSS and the load
 * average: for profiling and old-vs-new measurements of the stage without the rest of analyze.
 * Later stages in the folder are left as they are (delete them: they depend on this one).
 */
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { runGradients } from '../engine/pipeline/gradients-stage.ts';
import { pipelinePaths, readPipelineRecord } from '../engine/pipeline/pipeline-folder.ts';
import { StageClock } from '../engine/pipeline/progress.ts';
import { initBackend } from '../engine/tensor/backend.ts';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';

const CLI = {
  usage: ['node --import tsx tools/run-gradients-stage.ts INSTRUCT ANALYSIS_DIR [--workers N]'],
  about: 'INSTRUCT: the analysed Instruct checkpoint; ANALYSIS_DIR: an analysis folder whose targets stage is done.',
  options: { workers: { type: 'string', value: 'N', help: 'gradient worker threads (default: the analysis\' setting)' } },
  allowPositionals: true,
} as const satisfies CliSpec;
const { positionals, values } = parseCli(CLI);
const [instructDir, dir] = positionals;
if (instructDir === undefined || dir === undefined || positionals.length > 2) exitWithUsageError(CLI, 'expects two folders, INSTRUCT and ANALYSIS_DIR');
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

await initBackend();
const record = await readPipelineRecord(dir);
const paths = pipelinePaths(dir);
await rm(paths.gradients, { recursive: true, force: true });
const instruct = await Checkpoint.open(instructDir);
const settings = { ...record.settings, ...(values.workers === undefined ? {} : { workers: Number(values.workers) }) };
let peak = process.memoryUsage.rss();
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100);
console.log(`load average ${load()} before`);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const elapsed = (): string => ((performance.now() - started) / 1000).toFixed(1);
try {
  await runGradients(
    { instruct, thinking: instruct, inputs: record.inputs, settings, paths, callbacks: { onLog: (m) => console.log(m) } },
    new StageClock('gradients', (progress) => console.log(`${elapsed()} s ${progress.message ?? ''} (${(progress.fraction * 100).toFixed(0)}%)`)),
  );
} finally {
  clearInterval(sampler);
  await instruct.close();
}
const cpu = process.cpuUsage(cpuBefore);
console.log(`gradients ${elapsed()} s wall, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (all threads), peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB, load average ${load()} after`);
