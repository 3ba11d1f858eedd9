/**
 * The MoE mode of bench-memory.ts (`npm run bench:memory -- --moe [--scale 8] [--keep] [--before REV]`): a
 * Qwen3-30B-A3B-shaped pair (the real 18,867 tensor names, widths / scale, layer 0's 128 routed
 * experts at full size) written to the temp folder, exported by CRANE in a fresh process, and
 * timed against `cp` of the same bytes. Prints the export's throughput next to cp's, and its
 * peak RSS against the largest tensor and against the process's RSS just before the export.
 *
 * The export is CRANE without an analysis (the pair has no calibration data): T(δ) per tensor,
 * α 0.25 (the paper's 30B preset), S = 1, no projection, the router rule (SLERP) on the 48
 * routers, the embedding and lm_head rules with no token rows (the scaled vocabulary holds no
 * Qwen3 ids). Its time includes hashing both inputs into the recipe (on a worker thread, beside
 * the edit, since 6af87bc; before, a phase of its own before the first tensor, reported apart).
 * `--before REV` also runs the export with the engine at commit REV on the same pair.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { exportMerge } from '../engine/export/export-checkpoint.ts';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { formatBytes } from '../engine/protocol/format-bytes.ts';
import { defaultResolvedSettings } from '../engine/protocol/settings-defaults.ts';
import type { ResolvedCraneSettings } from '../engine/protocol/settings-schemas.ts';
import { exportVerdict, largestF32Bytes, peakRss } from './memory-report.ts';
import { QWEN3_30B_A3B_TENSORS, writeShapedMoeModel } from './shaped-checkpoint.ts';

const SETTINGS: ResolvedCraneSettings = {
  ...defaultResolvedSettings({ think: [], special: [] }),
  alpha: 0.25,
  stages: { threshold: true, gate: false, gsp: false },
};

/** Child process: CRANE of dir/instruct and dir/thinking into dir/merged; prints its figures as JSON. */
export async function moeExportPhase(dir: string): Promise<void> {
  const [instruct, thinking] = [await Checkpoint.open(join(dir, 'instruct')), await Checkpoint.open(join(dir, 'thinking'))];
  try {
    const baselineRss = process.memoryUsage().rss;
    const cpu = process.cpuUsage();
    const started = performance.now();
    let writeStarted: number | null = null;
    const result = await exportMerge({
      instruct, thinking, method: { method: 'crane', settings: SETTINGS }, dtype: 'source', outDir: join(dir, 'merged'),
      onProgress: (p) => { if (p.phase === 'write') writeStarted ??= performance.now(); },
    });
    const ended = performance.now();
    const used = process.cpuUsage(cpu);
    console.log(JSON.stringify({
      peakRss: peakRss(), baselineRss, largestF32: largestF32Bytes(instruct), totalBytes: result.totalBytes, tensors: instruct.tensors.size,
      inputBytes: instruct.totalBytes + thinking.totalBytes, hashSeconds: ((writeStarted ?? ended) - started) / 1000, writeSeconds: (ended - (writeStarted ?? started)) / 1000,
      cpuSeconds: (used.user + used.system) / 1e6,
    }));
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

/** Seconds for `cp -r from to` plus fsync of the copies (the export fsyncs what it writes). */
async function timeCopy(from: string, to: string): Promise<number> {
  const started = performance.now();
  const cp = spawnSync('cp', ['-r', from, to], { stdio: 'inherit' });
  if (cp.status !== 0) throw new Error(`cp -r ${from} ${to} failed (exit ${cp.status})`);
  const sync = spawnSync('sync', (await readdir(to)).map((f) => join(to, f)), { stdio: 'inherit' });
  if (sync.status !== 0) throw new Error(`sync ${to} failed (exit ${sync.status})`);
  return (performance.now() - started) / 1000;
}

const rate = (bytes: number, seconds: number) => `${formatBytes(bytes / seconds)}/s`;

type PhaseRunner = (phase: string, dir: string, script?: string) => Record<string, number>;

/**
 * Writes the pair under root, runs the export in `child` (first with the engine at `before.rev`
 * when given, so before and after share one run and one machine load), times cp, prints the figures.
 */
export async function runMoeBench(root: string, scale: number, child: PhaseRunner, before?: { rev: string; script: string }): Promise<void> {
  const written = performance.now();
  for (const [side, seed] of [['instruct', 1], ['thinking', 2]] as const) await writeShapedMoeModel(join(root, side), { scale, seed, fullSizeExpertLayer: 0 });
  const writeSeconds = (performance.now() - written) / 1000;
  const engines = before === undefined ? [{ label: '', script: undefined }] : [{ label: ` @${before.rev}`, script: before.script }, { label: ' now', script: undefined }];
  const runs = engines.map(({ label, script }) => {
    const figures = child('export-moe', root, script);
    rmSync(join(root, 'merged'), { recursive: true, force: true });
    return { label, figures };
  });
  const copySeconds = await timeCopy(join(root, 'instruct'), join(root, 'copy'));
  const first = (runs[0] as { figures: Record<string, number> }).figures;
  const bytes = first['totalBytes'] ?? 0;
  console.log(`${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other jobs slow the wall times; the CPU time is the export's own)`);
  console.log(`Qwen3-30B-A3B-shaped pair: ${first['tensors']} tensors each (the real model has ${QWEN3_30B_A3B_TENSORS}), widths / ${scale}, layer 0's 384 expert tensors full size; ${formatBytes(bytes)} BF16 per checkpoint (written in ${writeSeconds.toFixed(1)} s for both)`);
  console.log(`cp -r + fsync of the Instruct checkpoint (${formatBytes(bytes)})  ${copySeconds.toFixed(1)} s: ${rate(bytes, copySeconds)}`);
  for (const { label, figures: m } of runs) {
    // Hashing overlaps the edit since 6af87bc (hashSeconds is then the time before the first tensor is written).
    const [hash, write] = [m['hashSeconds'] ?? 0, m['writeSeconds'] ?? 1];
    const aboveBaseline = (m['peakRss'] ?? 0) - (m['baselineRss'] ?? 0);
    const cpuSeconds = m['cpuSeconds'] ?? 0;
    console.log(`CRANE export${label} (T(δ), α 0.25, router SLERP; no analysis)  before the first tensor ${hash.toFixed(1)} s, edit + write ${write.toFixed(1)} s: ${rate(bytes, write)} written (reads ${formatBytes(m['inputBytes'] ?? 0)}, writes ${formatBytes(bytes)}); ${cpuSeconds.toFixed(1)} CPU s in all = ${rate(bytes, cpuSeconds)} per CPU second`);
    console.log(`  edit + write / cp = ${(write / copySeconds).toFixed(2)}×, whole export / cp = ${((hash + write) / copySeconds).toFixed(2)}×; ${exportVerdict(m)}; ${formatBytes(aboveBaseline)} above the RSS before the export (${formatBytes(m['baselineRss'] ?? 0)}) = ${(aboveBaseline / (m['largestF32'] ?? 1)).toFixed(2)}× the largest tensor`);
  }
}
