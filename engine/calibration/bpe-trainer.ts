/**
 * A small, deterministic byte-pair-encoding trainer for byte-level vocabularies.
 *
 * API: `trainBpe(words, {maxMerges, minFrequency})` → `{merges}`, where `words` maps each
 * pre-token (already in the byte-level alphabet, one character per byte) to its count.
 * Each step merges the most frequent adjacent pair; ties go to the smallest pair in string order,
 * so the result depends only on the corpus and never on Map iteration or hashing.
 * Cost is O(merges × corpus pre-tokens): fine for the project's own small vocabularies
 * (a few thousand merges over a corpus of a few MB), not meant for large-vocabulary training.
 */

export interface BpeOptions {
  readonly maxMerges: number;
  /** Pairs seen fewer times than this are never merged (default 2). */
  readonly minFrequency?: number;
}

interface Word {
  symbols: string[];
  readonly count: number;
}

// The byte-level alphabet has no plain space (it becomes Ġ), so a space joins pair keys safely.
const key = (a: string, b: string): string => `${a} ${b}`;

export function trainBpe(words: ReadonlyMap<string, number>, options: BpeOptions): { merges: [string, string][] } {
  const minFrequency = options.minFrequency ?? 2;
  const corpus: Word[] = [...words].map(([text, count]) => ({ symbols: [...text], count }));
  const pairCounts = new Map<string, number>();
  for (const word of corpus) addPairs(pairCounts, word, +1);

  const merges: [string, string][] = [];
  while (merges.length < options.maxMerges) {
    const best = bestPair(pairCounts, minFrequency);
    if (best === undefined) break;
    const [a, b] = best.split(' ') as [string, string];
    merges.push([a, b]);
    for (const word of corpus) {
      if (!containsPair(word.symbols, a, b)) continue;
      addPairs(pairCounts, word, -1);
      word.symbols = mergeSymbols(word.symbols, a, b);
      addPairs(pairCounts, word, +1);
    }
  }
  return { merges };
}

function addPairs(counts: Map<string, number>, word: Word, sign: 1 | -1): void {
  for (let i = 0; i + 1 < word.symbols.length; i++) {
    const k = key(word.symbols[i] as string, word.symbols[i + 1] as string);
    const next = (counts.get(k) ?? 0) + sign * word.count;
    if (next === 0) counts.delete(k);
    else counts.set(k, next);
  }
}

function bestPair(counts: ReadonlyMap<string, number>, minFrequency: number): string | undefined {
  let best: string | undefined;
  let bestCount = 0;
  for (const [k, count] of counts) {
    if (count < minFrequency) continue;
    if (count > bestCount || (count === bestCount && best !== undefined && k < best)) {
      best = k;
      bestCount = count;
    }
  }
  return best;
}

function containsPair(symbols: readonly string[], a: string, b: string): boolean {
  for (let i = 0; i + 1 < symbols.length; i++) if (symbols[i] === a && symbols[i + 1] === b) return true;
  return false;
}

/** Left-to-right, non-overlapping: "aaa" with (a, a) becomes ["aa", "a"], as BPE encoders do. */
function mergeSymbols(symbols: readonly string[], a: string, b: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < symbols.length; i++) {
    if (i + 1 < symbols.length && symbols[i] === a && symbols[i + 1] === b) {
      out.push(a + b);
      i++;
    } else {
      out.push(symbols[i] as string);
    }
  }
  return out;
}
