/**
 * `node --import tsx tools/bench-deltas.ts`: the curvature stage's Δ computation alone (every unit direction's Δ_b
 * of every tensor, direction-deltas.ts computeAll, then the store sealed for the worker
 * threads), on a finished analysis folder: wall time, CPU seconds (all threads), peak RSS, the
 * load average, and a SHA-256 of every sealed Δ (direction, rows and float32 bytes, in name
 * order) so that two engines' Δ can be compared bit for bit.
 *
 * --before REV also runs the engine as it was at commit REV (its tree extracted by `git archive`
 * into a temp folder, sharing this node_modules), old then new, each in a process of its own,
 * in one run: before/after figures under one machine load, and whether the digests agree.
 * The basis is curvature-stage.ts's: the default edit at the analysed q, the folder's gate table
 * and projectors.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exitWithUsageError, parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';
import type * as backendModule from '../engine/tensor/backend.ts';
import type * as checkpointModule from '../engine/io/checkpoint.ts';
import type * as pipelineFolderModule from '../engine/pipeline/pipeline-folder.ts';
import type * as checkpointTokenizerModule from '../engine/pipeline/checkpoint-tokenizer.ts';
import type * as settingsDefaultsModule from '../engine/protocol/settings-defaults.ts';
import type * as editDirectionsModule from '../engine/crane/edit-directions.ts';
import type * as deltaStoreModule from '../engine/pipeline/delta-store.ts';
import type * as directionDeltasModule from '../engine/pipeline/direction-deltas.ts';

const CLI = {
  usage: ['node --import tsx tools/bench-deltas.ts INSTRUCT THINKING ANALYSIS_DIR [--before REV]'],
  options: {
    before: { type: 'string', value: 'REV', help: 'also run the engine at commit REV (old, then new), each in a process of its own' },
    engine: { type: 'string', value: 'ROOT', help: 'measure the engine under ROOT in this process: the bench starts these' },
  },
  allowPositionals: true,
} as const satisfies CliSpec;
const { positionals, values } = parseCli(CLI);
const [instructDir, thinkingDir, analysisDir] = positionals;
if (instructDir === undefined || thinkingDir === undefined || analysisDir === undefined || positionals.length > 3) {
  exitWithUsageError(CLI, 'expects three folders, INSTRUCT THINKING ANALYSIS_DIR');
}
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

interface Figures {
  readonly wall_s: number;
  readonly cpu_s: number;
  readonly peak_rss_mib: number;
  readonly tensors: number;
  readonly digest: string;
}

if (values.engine !== undefined) console.log(JSON.stringify(await measure(values.engine)));
else await compare(values.before);

/** This process: Δ of every tensor with the engine under `root`, measured. */
async function measure(root: string): Promise<Figures> {
  const from = async (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(root, path)).href) as Promise<Record<string, unknown>>;
  const { initBackend } = await from('engine/tensor/backend.ts') as typeof backendModule;
  const { Checkpoint } = await from('engine/io/checkpoint.ts') as typeof checkpointModule;
  const { loadPipelineAnalysis } = await from('engine/pipeline/pipeline-folder.ts') as typeof pipelineFolderModule;
  const { editTokenRows } = await from('engine/pipeline/checkpoint-tokenizer.ts') as typeof checkpointTokenizerModule;
  const { defaultResolvedSettings } = await from('engine/protocol/settings-defaults.ts') as typeof settingsDefaultsModule;
  const { editDirections } = await from('engine/crane/edit-directions.ts') as typeof editDirectionsModule;
  const { DeltaStore } = await from('engine/pipeline/delta-store.ts') as typeof deltaStoreModule;
  const { ComputedDeltas, SealedDirections } = await from('engine/pipeline/direction-deltas.ts') as typeof directionDeltasModule;

  await initBackend();
  const { record, artifacts } = await loadPipelineAnalysis(analysisDir as string);
  const tokens = await editTokenRows(instructDir as string, () => undefined);
  const defaults = { ...defaultResolvedSettings(tokens), keepQuantile: record.settings.keepQuantile };
  const [instruct, thinking] = [await Checkpoint.open(instructDir as string), await Checkpoint.open(thinkingDir as string)];
  const basis = editDirections(instruct.tensors.keys(), defaults, tokens, { gate: artifacts.gate, projector: (key) => artifacts.projectors.get(key) });
  const scratch = await mkdtemp(join(tmpdir(), 'crane-bench-deltas-'));
  const store = await DeltaStore.open(join(scratch, 'deltas.scratch'));
  try {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await new ComputedDeltas(instruct, thinking, basis, store).computeAll(undefined);
    const sealed = await store.seal();
    const wall = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    if (sealed === undefined) throw new Error('the Δ store could not be sealed (over its budgets)');
    const view = await SealedDirections.open(sealed, basis.directions.length, basis.directions.length);
    const hash = createHash('sha256');
    const names = [...sealed.tensors.map(([name]) => name)].sort();
    for (const name of names) {
      hash.update(name);
      for (const delta of await view.deltasOf(name)) {
        if ('rowsOf' in delta) continue; // formed by rows in the passes, never sealed (and none without a rowwise source)
        hash.update(`${delta.direction}:${delta.width ?? ''}:`);
        if (delta.rows !== undefined) hash.update(new Uint8Array(delta.rows.buffer, delta.rows.byteOffset, delta.rows.byteLength));
        hash.update(new Uint8Array(delta.values.buffer, delta.values.byteOffset, delta.values.byteLength));
      }
    }
    return { wall_s: wall, cpu_s: (cpu.user + cpu.system) / 1e6, peak_rss_mib: process.resourceUsage().maxRSS / 1024, tensors: names.length, digest: hash.digest('hex') };
  } finally {
    await store.close();
    await rm(scratch, { recursive: true, force: true });
    await instruct.close();
    await thinking.close();
  }
}

/** Each engine in a child process of its own (its own peak RSS), old first. */
async function compare(rev: string | undefined): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'crane-bench-deltas-engines-'));
  try {
    const engines = [...(rev === undefined ? [] : [{ label: `@${rev}`, dir: await treeAt(rev, root) }]), { label: 'now', dir: join(import.meta.dirname, '..') }];
    const results: (Figures & { label: string })[] = [];
    for (const { label, dir } of engines) {
      const before = load();
      const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, instructDir as string, thinkingDir as string, analysisDir as string, '--engine', dir], { encoding: 'utf8' });
      const figures = JSON.parse(out.trim().split('\n').at(-1) as string) as Figures;
      results.push({ label, ...figures });
      console.log(`${label}: ${figures.tensors} tensors, ${figures.wall_s.toFixed(1)} s wall, ${figures.cpu_s.toFixed(1)} s CPU (all threads), peak RSS ${figures.peak_rss_mib.toFixed(0)} MiB, load average ${before} before, ${load()} after; Δ sha256 ${figures.digest.slice(0, 16)}`);
    }
    const [old, now] = results;
    if (old !== undefined && now !== undefined) {
      console.log(`now vs ${old.label}: wall ×${(old.wall_s / now.wall_s).toFixed(2)} faster, CPU ×${(old.cpu_s / now.cpu_s).toFixed(2)} less; Δ ${old.digest === now.digest ? 'bit-identical' : 'DIFFER'}`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
