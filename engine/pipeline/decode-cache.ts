/**
 * Greedy-decoded calibration targets, cached on disk across runs and across stage invalidations.
 *
 *   const cache = await DecodeCache.open(path);
 *   cache.get(key) / await cache.put(key, entry)
 *   decodeKey({ model, prompt, maxNewTokens, stopTokenIds }) → hex key
 *
 * Keyed by the decoding model's file hashes, the exact prompt token ids (so the template and
 * tokenizer are in the key) and the decode settings: a target is reused exactly when decoding
 * again would give it. One JSON line per target, appended as soon as it is decoded, so a
 * cancelled run keeps every finished target; a line torn by a crash mid-append is not JSON and is
 * ignored, but a JSON line of the wrong shape is an error naming the file and line (it was not
 * written by this cache).
 * Lives outside the stage folders because it stays valid when other settings change.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { checkJson } from '../io/json-file.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';

const decodedTargetSchema = z.strictObject({
  tokens: z.array(z.int().nonnegative()),
  stopReason: z.enum(['stop-token', 'max-tokens']),
});
const cacheLineSchema = decodedTargetSchema.extend({ key: z.string().min(1) });

export type DecodedTarget = z.infer<typeof decodedTargetSchema>;

export interface DecodeKeyParts {
  readonly model: Readonly<Record<string, string>>;
  readonly prompt: readonly number[];
  readonly maxNewTokens: number;
  readonly stopTokenIds: readonly number[];
}

export function decodeKey(parts: DecodeKeyParts): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

export class DecodeCache {
  private constructor(
    private readonly path: string,
    private readonly entries: Map<string, DecodedTarget>,
    /** The file ends in a torn line: the next append starts a new line so it is not glued to it. */
    private torn: boolean,
  ) {}

  static async open(path: string): Promise<DecodeCache> {
    const entries = new Map<string, DecodedTarget>();
    const text = await readFile(path, 'utf8').catch(() => '');
    text.split('\n').forEach((line, i) => {
      const json = lineJson(line);
      if (json === undefined) return; // blank, or torn: that target is decoded again
      const { key, ...target } = checkJson(`${path}:${i + 1}`, json, cacheLineSchema, 'a decode-cache line');
      entries.set(key, target);
    });
    return new DecodeCache(path, entries, text.length > 0 && !text.endsWith('\n'));
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): DecodedTarget | undefined {
    return this.entries.get(key);
  }

  async put(key: string, target: DecodedTarget): Promise<void> {
    this.entries.set(key, target);
    await mkdir(dirname(this.path), { recursive: true });
    await appendFile(this.path, `${this.torn ? '\n' : ''}${JSON.stringify({ key, ...target })}\n`);
    this.torn = false;
  }
}

/** A line's JSON; undefined for a blank line or one an interrupted append cut short (never valid JSON). */
function lineJson(line: string): unknown {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
