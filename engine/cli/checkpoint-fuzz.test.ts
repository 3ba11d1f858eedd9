/**
 * Checkpoint fuzz: a real checkpoint (the demo Instruct model, re-written as two shards with
 * an index) mutated a few hundred ways — length prefixes, header bytes and entries, data length,
 * config.json, the index, tokenizer files, and folders/FIFOs/devices in place of files — each
 * read through what `crane inspect` and `crane score` run (Checkpoint.open, the summary and
 * tensor table, every tensor, the pair report against the original, the checkpoint's tokenizer,
 * its chat template, the finiteness scan and the model's loss); every 30th also through what
 * `crane merge` runs (a Task Arithmetic export with the demo Thinking model). Every mutation must end in one of
 * two ways: a CheckpointError/CalibrationError naming the mutated file (or, where the file is
 * well-formed but disagrees with the rest, the checkpoint folder), or exactly the result of the
 * unmutated checkpoint. A crash (any other error), a hang (per-case timeout) or a different
 * result without an error fails the test. Seeded (CRANE_FUZZ_SEED overrides), and the number of
 * mutations run is printed (CRANE_FUZZ_VERBOSE=1: each one).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { readChatJsonl } from '../calibration/chat-dataset.ts';
import type { Chat } from '../calibration/chat-schema.ts';
import { ChatTemplate } from '../calibration/chat-template.ts';
import { tokenizeChat } from '../calibration/chat-tokens.ts';
import { checkpointSummary, tensorRows } from '../handlers/checkpoint-views.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { writeCheckpoint } from '../io/checkpoint-writer.ts';
import { exportMerge } from '../export/export-checkpoint.ts';
import { comparePair } from '../io/pair-report.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import type { FileMutation, SpecialFile } from '../io/testing/file-mutation.ts';
import { checkpointFuzzMutations } from '../io/testing/checkpoint-mutations.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { assertFiniteWeights } from '../model/finite-weights.ts';
import { loadCheckpointTokenizer } from '../pipeline/checkpoint-tokenizer.ts';
import { SeededRandom } from '../protocol/seeded-random.ts';
import { initBackend } from '../tensor/backend.ts';

const DEMO = fileURLToPath(new URL('../../assets/demo/', import.meta.url));
const SEED = Number(process.env['CRANE_FUZZ_SEED'] ?? 20261201);
/** CRANE_FUZZ_VERBOSE=1 prints every mutation's outcome (and the error it got). */
const VERBOSE = process.env['CRANE_FUZZ_VERBOSE'] === '1';
const CASE_TIMEOUT_MS = 15_000;
const MERGE_EVERY = 30;
// FIFOs and /dev/zero exist only on POSIX systems.
const posix = process.platform !== 'win32';

/** What inspect and score compute from a checkpoint, as one digest; throws what they throw. */
async function readLikeInspectAndScore(dir: string, original: Checkpoint, chat: Chat): Promise<string> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    const hash = createHash('sha256');
    // The folder differs from case to case by construction; everything else must match.
    hash.update(JSON.stringify({ summary: { ...checkpointSummary(checkpoint), dir: null }, tensors: tensorRows(checkpoint) }));
    for (const name of checkpoint.tensors.keys()) {
      const raw = await checkpoint.readRaw(name);
      hash.update(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
    }
    // Run for what it reads (tokenizer files, configs); its findings legitimately change with
    // a changed file (an added config field is a warning), so they are not part of the result.
    await comparePair(checkpoint, original);
    const tokenizer = await loadCheckpointTokenizer(checkpoint);
    const tokenized = tokenizeChat(chat, tokenizer, ChatTemplate.fromTokenizer(tokenizer), { label: 'fuzz chat' });
    await assertFiniteWeights([checkpoint], { outcome: 'nothing was scored' });
    const [score] = await loadCausalLM(checkpoint).sequenceLosses([{ ids: tokenized.ids, targets: tokenized.lossMask }]);
    hash.update(JSON.stringify({ ids: tokenized.ids, loss: score?.loss }));
    return hash.digest('hex');
  } finally {
    await checkpoint.close();
  }
}

/** What `crane merge` writes as weights (Task Arithmetic with the demo Thinking), as one digest. */
async function mergeLike(dir: string, thinking: Checkpoint, outDir: string): Promise<string> {
  const instruct = await Checkpoint.open(dir);
  try {
    await exportMerge({ instruct, thinking, method: { method: 'task_arithmetic', lambda: 0.5 }, dtype: 'source', outDir });
  } finally {
    await instruct.close();
  }
  const hash = createHash('sha256');
  for (const file of (await readdir(outDir)).filter((f) => f.endsWith('.safetensors')).sort()) hash.update(await readFile(join(outDir, file)));
  return hash.digest('hex');
}

/** The case folder: every file a symlink to the base's, except the mutated one. */
async function materialize(base: string, caseDir: string, mutation: FileMutation): Promise<void> {
  await mkdir(caseDir);
  for (const file of await readdir(base)) if (file !== mutation.file) await symlink(join(base, file), join(caseDir, file));
  const content = mutation.content();
  const path = join(caseDir, mutation.file);
  if (Buffer.isBuffer(content)) return writeFile(path, content);
  const make: Record<SpecialFile, () => Promise<unknown>> = {
    folder: () => mkdir(path),
    fifo: async () => spawnSync('mkfifo', [path]),
    device: () => symlink('/dev/zero', path),
    missing: async () => undefined,
  };
  await make[content]();
}

type Outcome = { kind: 'same' } | { kind: 'refused'; message: string } | { kind: 'failure'; why: string };

async function runCase(base: string, caseDir: string, mutation: FileMutation, probe: (dir: string) => Promise<string>, expected: string): Promise<Outcome> {
  await materialize(base, caseDir, mutation);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`hang: no answer in ${CASE_TIMEOUT_MS} ms`)), CASE_TIMEOUT_MS); });
  try {
    const digest = await Promise.race([probe(caseDir), timeout]);
    return digest === expected ? { kind: 'same' } : { kind: 'failure', why: 'succeeded with a result that differs from the unmutated checkpoint' };
  } catch (error) {
    if (!(error instanceof CheckpointError || error instanceof CalibrationError)) {
      return { kind: 'failure', why: `crashed: ${(error as Error).stack ?? String(error)}` };
    }
    const named = error.message.includes(join(caseDir, mutation.file)) || (error.message.includes(caseDir) && (mutation.blame === 'folder' || error.message.includes(mutation.file)));
    return named ? { kind: 'refused', message: error.message } : { kind: 'failure', why: `error does not name ${mutation.file}: ${error.message}` };
  } finally {
    clearTimeout(timer);
  }
}

/** The demo Instruct checkpoint re-written in two shards with an index, with its side files. */
async function shardedDemo(dir: string): Promise<void> {
  const demo = await Checkpoint.open(join(DEMO, 'instruct'));
  try {
    const specs = [...demo.tensors.values()].map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape }));
    await writeCheckpoint(dir, {
      specs,
      produce: (spec) => demo.readRaw(spec.name),
      maxShardBytes: Math.ceil(demo.totalBytes / 2),
      metadata: { format: 'pt' },
      writeSideFiles: async (work) => {
        for (const file of ['config.json', ...demo.sideFiles]) await writeFile(join(work, file), await readFile(join(demo.dir, file)));
      },
    });
  } finally {
    await demo.close();
  }
}

describe('checkpoint fuzz', () => {
  let root: string;
  beforeAll(async () => {
    await initBackend();
    root = await mkdtemp(join(tmpdir(), 'crane-fuzz-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('refuses every mutation naming the file, or reads it exactly as the original — never a crash, hang or different result', async () => {
    const base = join(root, 'base');
    await shardedDemo(base);
    const original = await Checkpoint.open(base);
    const thinking = await Checkpoint.open(join(DEMO, 'thinking'));
    const chat = (await readChatJsonl(join(DEMO, 'data', 'tool-use.jsonl')))[0] as Chat;
    const inspectAndScore = (dir: string) => readLikeInspectAndScore(dir, original, chat);
    // Every MERGE_EVERY-th mutation also goes through the export (the rest only read: faster).
    const withMerge = async (dir: string) => `${await inspectAndScore(dir)} ${await mergeLike(dir, thinking, `${dir}-merged`)}`;
    const expected = { read: await inspectAndScore(base), merge: await withMerge(base) };
    const mutations = await checkpointFuzzMutations(base, new SeededRandom(SEED), { specialFiles: posix });
    const counts = { same: 0, refused: 0 };
    const failures: string[] = [];
    try {
      for (const [i, mutation] of mutations.entries()) {
        const merged = i % MERGE_EVERY === 0;
        const outcome = await runCase(base, join(root, `case-${i}`), mutation, merged ? withMerge : inspectAndScore, merged ? expected.merge : expected.read);
        if (outcome.kind === 'failure') failures.push(`${mutation.id}: ${outcome.why}`);
        else counts[outcome.kind]++;
        if (VERBOSE) console.log(`${outcome.kind.padEnd(8)} ${mutation.id}${outcome.kind === 'refused' ? ` → ${outcome.message.split('\n')[0]}` : ''}`);
      }
    } finally {
      await Promise.all([original.close(), thinking.close()]);
    }
    console.log(`checkpoint fuzz (seed ${SEED}): ${mutations.length} mutations (${Math.ceil(mutations.length / MERGE_EVERY)} also merged) — ${counts.refused} refused naming the file, ${counts.same} read exactly as the original, ${failures.length} failures`);
    expect(failures).toEqual([]);
    expect(mutations.length).toBeGreaterThan(300);
  }, 240_000);
});

/** The CLI itself on a few mutated checkpoints: exit 1 with one line naming the file, no stack, no hang. */
describe('crane on mutated checkpoints', () => {
  const crane = (...args: string[]) => spawnSync(process.execPath, ['bin/crane.mjs', ...args], { encoding: 'utf8', timeout: 90_000 });
  const expectOneLineError = (run: ReturnType<typeof crane>, command: string, path: string, detail: RegExp) => {
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^crane ${command}: ${path}`));
    expect(run.stderr).toMatch(detail);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  };
  /** The demo Instruct folder with model.safetensors replaced by `shard` (bytes, or a FIFO). */
  const mutatedDemo = async (dir: string, shard: Buffer | 'fifo') => {
    const mutation: FileMutation = { id: 'cli', file: 'model.safetensors', content: () => shard, blame: 'file' };
    await materialize(join(DEMO, 'instruct'), dir, mutation);
    return join(dir, 'model.safetensors');
  };

  it('inspect and merge refuse trailing bytes after the tensors; score refuses a FIFO as the shard', async () => {
    await withTempDir(async (root) => {
      const shard = await readFile(join(DEMO, 'instruct', 'model.safetensors'));
      const trailing = await mutatedDemo(join(root, 'trailing'), Buffer.concat([shard, Buffer.alloc(16)]));
      expectOneLineError(crane('inspect', join(root, 'trailing')), 'inspect', trailing, /16 bytes unaccounted for/);
      const out = join(root, 'merged');
      expectOneLineError(crane('merge', join(root, 'trailing'), join(DEMO, 'thinking'), '--method', 'task_arithmetic', '--out', out), 'merge', trailing, /unaccounted for/);
      expect(await readdir(root)).toEqual(['trailing']);
      if (!posix) return;
      const data = join(root, 'chats.jsonl');
      await writeFile(data, `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] })}\n`);
      const fifo = await mutatedDemo(join(root, 'fifo'), 'fifo');
      expectOneLineError(crane('score', join(root, 'fifo'), data), 'score', fifo, /is a FIFO/);
    });
  }, 300_000);
});

