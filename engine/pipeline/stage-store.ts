/**
 * Per-stage markers of the resumable analysis cache.
 *
 *   stageStatus(dir, key) → { state: 'missing' } | { state: 'cached' } | { state: 'stale', reasons }
 *   markStageDone(dir, key)          written LAST, after every file of the stage is in place
 *   openStage(dir, key) → 'resumed' | 'fresh'   keeps a half-done folder started with the same key,
 *                                    else empties it (a stale stage, or one started with other inputs)
 *
 * A stage key is a plain JSON object of everything the stage's result depends on: input file
 * hashes, the settings it reads, and the keys of the stages it consumes — so a change anywhere
 * upstream makes every dependent stage stale by construction. The marker stores the whole key
 * (not only its hash) so that "stale" can say which part changed. A folder without a marker
 * was interrupted: it is never read as a result (a stage may keep its own resumable progress
 * inside it, see gradient-store.ts).
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readJsonFile } from '../io/json-file.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';
import { writeFileAtomic } from '../io/atomic-file.ts';

export const STAGE_MARKER = 'done.json';
const STARTED_FILE = 'started.json';

export type StageKey = Readonly<Record<string, unknown>>;

export type StageStatus =
  | { readonly state: 'missing' }
  | { readonly state: 'cached' }
  | { readonly state: 'stale'; readonly reasons: readonly string[] };

/** A done-marker holds the stage's key: a JSON object. */
const markerSchema = z.record(z.string(), z.json());

export async function stageStatus(dir: string, key: StageKey): Promise<StageStatus> {
  let before: Record<string, unknown> | undefined;
  try {
    before = await readJsonFile(join(dir, STAGE_MARKER), markerSchema, 'a stage marker');
  } catch (error) {
    // markStageDone writes markers atomically, so one that does not parse was not written by it:
    // the stage is redone, and the reason names the file.
    if (error instanceof CheckpointError) return { state: 'stale', reasons: [error.message] };
    throw error;
  }
  if (before === undefined) return { state: 'missing' };
  const now = normalised(key);
  const reasons = [...new Set([...Object.keys(before), ...Object.keys(now)])]
    .filter((k) => canonicalJson(before[k]) !== canonicalJson(now[k]))
    .map((k) => `${k} changed`);
  return reasons.length === 0 ? { state: 'cached' } : { state: 'stale', reasons };
}

export async function markStageDone(dir: string, key: StageKey): Promise<void> {
  await writeFileAtomic(join(dir, STAGE_MARKER), `${JSON.stringify(normalised(key), null, 1)}\n`);
}

/**
 * Prepares a stage that is not cached. Its folder is kept when it was started with this very key
 * (a cancelled run: the stage may resume from its own progress files), else emptied — the marker
 * first, so a crash mid-way never leaves a marked folder with missing files.
 */
export async function openStage(dir: string, key: StageKey): Promise<'resumed' | 'fresh'> {
  const started = await readFile(join(dir, STARTED_FILE), 'utf8').catch(() => undefined);
  const done = await readFile(join(dir, STAGE_MARKER), 'utf8').then(() => true, () => false);
  if (!done && started !== undefined && started === canonicalJson(normalised(key))) return 'resumed';
  await rm(join(dir, STAGE_MARKER), { force: true });
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, STARTED_FILE), canonicalJson(normalised(key)));
  return 'fresh';
}

/** Through JSON, so what is compared is what a marker can store (no undefined, no Map). */
function normalised(key: StageKey): Record<string, unknown> {
  return JSON.parse(JSON.stringify(key)) as Record<string, unknown>;
}
