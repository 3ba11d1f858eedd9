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
 * cancelled run keeps every finished target; a torn last line (a crash mid-append) is ignored.
 * Lives outside the stage folders because it stays valid when other settings change.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { canonicalJson } from '../io/tokenizer-files.ts';

export interface DecodedTarget {
  readonly tokens: readonly number[];
  readonly stopReason: 'stop-token' | 'max-tokens';
}

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
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const { key, tokens, stopReason } = JSON.parse(line) as { key: string } & DecodedTarget;
        if (typeof key === 'string' && Array.isArray(tokens)) entries.set(key, { tokens, stopReason });
      } catch {
        // A line torn by an interrupted append: that target is decoded again.
      }
    }
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
