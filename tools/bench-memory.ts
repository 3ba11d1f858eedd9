/**
 * Memory benchmark for checkpoint I/O and export: writes a multi-GB sharded BF16 checkpoint with
 * the streaming writer, then, in a fresh process, opens it, reads the tensor table and one large
 * tensor; then exports (task arithmetic, BF16) a Qwen3-0.6B-shaped pair whose largest tensor is
 * the 151,936 × 1,024 embedding. Prints each process's peak RSS next to the checkpoint size, and
 * the export's next to its largest tensor (as float32: what the edit computes in).
 * --moe: a Qwen3-30B-A3B-shaped pair, CRANE export vs cp (bench-memory-moe.ts). --phase export
 * --dir D exports D/instruct + D/thinking into D/merged (bench-shapes uses it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatBytes } from '../engine/protocol/format-bytes.ts';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { writeCheckpoint } from '../engine/io/checkpoint-writer.ts';
import type { TensorSpec } from '../engine/io/tensor-encoding.ts';
import { exportMerge } from '../engine/export/export-checkpoint.ts';
import { moeExportPhase, runMoeBench } from './bench-memory-moe.ts';
import { parseCli, type CliSpec } from './cli-args.ts';
import { treeAt } from './engine-at-rev.ts';
import { exportVerdict, largestF32Bytes, peakRss } from './memory-report.ts';
import { writeShapedModel } from './shaped-checkpoint.ts';

const ROWS = 4096;
const COLS = 4096;

async function writePhase(dir: string, gib: number): Promise<void> {
  const count = Math.ceil((gib * 1024 ** 3) / (ROWS * COLS * 2));
  const specs: TensorSpec[] = Array.from({ length: count }, (_, i) => ({ name: `model.layers.${i}.mlp.up_proj.weight`, dtype: 'BF16', shape: [ROWS, COLS] }));
  const values = new Float32Array(ROWS * COLS);
  await writeCheckpoint(dir, {
    specs,
    maxShardBytes: 2 * 1024 ** 3,
    produce: async (spec) => {
      values.fill(spec.name.length / 100);
      return values;
    },
    writeSideFiles: (work) => writeFile(join(work, 'config.json'), '{"model_type": "qwen3"}'),
  });
  console.log(JSON.stringify({ peakRss: peakRss() }));
}

async function readPhase(dir: string): Promise<void> {
  const checkpoint = await Checkpoint.open(dir);
  const names = [...checkpoint.tensors.keys()];
  const middle = names[Math.floor(names.length / 2)] as string;
  const data = await checkpoint.readFloat32(middle);
  await checkpoint.close();
  console.log(JSON.stringify({ peakRss: peakRss(), tensors: names.length, shards: checkpoint.shardFiles.length, totalBytes: checkpoint.totalBytes, tensorBytes: data.byteLength }));
}

/** Task arithmetic of dir/instruct and dir/thinking into dir/merged, as `crane merge` runs it. */
async function exportPhase(dir: string): Promise<void> {
  const [instruct, thinking] = [await Checkpoint.open(join(dir, 'instruct')), await Checkpoint.open(join(dir, 'thinking'))];
  try {
    const result = await exportMerge({ instruct, thinking, method: { method: 'task_arithmetic', lambda: 0.5 }, dtype: 'source', outDir: join(dir, 'merged') });
    console.log(JSON.stringify({ peakRss: peakRss(), largestF32: largestF32Bytes(instruct), totalBytes: result.totalBytes }));
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

/** Runs a phase in a fresh process, with this script or `script` (the same file at another commit). */
function child(phase: string, dir: string, gib: number, script = 'tools/bench-memory.ts'): Record<string, number> {
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, '--phase', phase, '--dir', dir, '--gb', String(gib)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`${phase} phase failed (exit ${run.status})`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as Record<string, number>;
}

const CLI = {
  usage: [
    'npm run bench:memory -- [--gb 3] [--layers 2] [--keep]',
    'npm run bench:memory -- --moe [--scale 8] [--keep] [--before REV]',
    'node --import tsx tools/bench-memory.ts --phase write|read|export|export-moe --dir D [--gb 3]',
  ],
  options: {
    gb: { type: 'string', value: 'GIB', default: '3', help: 'size of the written checkpoint in GiB' },
    layers: { type: 'string', value: 'N', default: '2', help: 'decoder layers of the Qwen3-0.6B-shaped pair the export step merges' },
    keep: { type: 'boolean', help: 'keep the temp folder and print its path' },
    moe: { type: 'boolean', help: 'the MoE mode instead: a Qwen3-30B-A3B-shaped pair, CRANE export vs cp' },
    scale: { type: 'string', value: 'S', default: '8', help: 'with --moe: widths divided by S' },
    before: { type: 'string', value: 'REV', help: 'with --moe: also export with the engine at commit REV' },
    phase: { type: 'string', value: 'P', help: 'run one phase in this process (write, read, export, export-moe) on --dir: the bench starts these' },
    dir: { type: 'string', value: 'D', help: 'with --phase: the folder it works on' },
  },
} as const satisfies CliSpec;
const { values: args } = parseCli(CLI);
const gib = Number(args.gb);
if (args.phase === 'write') await writePhase(args.dir as string, gib);
else if (args.phase === 'read') await readPhase(args.dir as string);
else if (args.phase === 'export') await exportPhase(args.dir as string);
else if (args.phase === 'export-moe') await moeExportPhase(args.dir as string);
else if (args.moe === true) {
  const root = await mkdtemp(join(tmpdir(), 'crane-bench-moe-'));
  try {
    const before = args.before === undefined ? undefined : { rev: args.before, script: join(await treeAt(args.before, root), 'tools', 'bench-memory.ts') };
    await runMoeBench(root, Number(args.scale), (phase, dir, script) => child(phase, dir, gib, script), before);
  } finally {
    if (args.keep !== true) await rm(root, { recursive: true, force: true });
    else console.log(`kept ${root}`);
  }
} else {
  const root = await mkdtemp(join(tmpdir(), 'crane-bench-'));
  const dir = join(root, 'checkpoint');
  try {
    const write = child('write', dir, gib);
    const read = child('read', dir, gib);
    console.log(`checkpoint on disk       ${formatBytes(read['totalBytes'] ?? 0)} in ${read['shards']} shards, ${read['tensors']} BF16 tensors of ${ROWS}x${COLS}`);
    console.log(`streamed export          peak RSS ${formatBytes(write['peakRss'] ?? 0)}  (${(((write['peakRss'] ?? 0) / (read['totalBytes'] ?? 1)) * 100).toFixed(1)}% of the checkpoint)`);
    console.log(`open table + read 1 tensor (${formatBytes(read['tensorBytes'] ?? 0)} as float32)  peak RSS ${formatBytes(read['peakRss'] ?? 0)}  (${(((read['peakRss'] ?? 0) / (read['totalBytes'] ?? 1)) * 100).toFixed(1)}% of the checkpoint)`);
    const layers = Number(args.layers);
    for (const [side, seed] of [['instruct', 1], ['thinking', 2]] as const) await writeShapedModel(join(root, side), '0.6b', { layers, seed });
    const merged = child('export', root, gib);
    console.log(`export (task arithmetic, Qwen3-0.6B shapes, ${layers} layers, ${formatBytes(merged['totalBytes'] ?? 0)} BF16)  ${exportVerdict(merged)}`);
  } finally {
    if (args.keep !== true) await rm(root, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}
