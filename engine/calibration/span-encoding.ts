/**
 * Tokenizing a text whose character spans carry a flag (loss targets), exactly.
 *
 * API: `encodeWithSpans(text, spans, tokenizer, label)` → `{ids, lossMask}`.
 * The text is cut at every span boundary and each piece is tokenized alone; the pieces must
 * concatenate to the tokenization of the whole text. When they do, every token lies wholly inside
 * or outside each span, so the mask is exact; when a token would straddle a boundary (BPE merging
 * across it) there is no exact mask and we fail rather than guess. Special tokens (a BOS the
 * post-processor would prepend) are never added, so the mask lines up with the ids one to one.
 */
import { CalibrationError } from './calibration-error.ts';
import type { ModelTokenizer } from './tokenizer.ts';

export interface Span {
  /** Character range [start, end). */
  readonly start: number;
  readonly end: number;
}

export function encodeWithSpans(text: string, spans: readonly Span[], tokenizer: ModelTokenizer, label: string): { ids: number[]; lossMask: Uint8Array } {
  const cuts = [...new Set([0, ...spans.flatMap((s) => [s.start, s.end]), text.length])].sort((a, b) => a - b);
  const ids: number[] = [];
  const mask: number[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [from, to] = [cuts[k] as number, cuts[k + 1] as number];
    // A piece after the first continues the text: a Metaspace "first" tokenizer prepends no ▁ to it.
    const piece = tokenizer.encode(text.slice(from, to), { addSpecialTokens: false, continuation: from > 0 });
    const target = spans.some((s) => s.start <= from && to <= s.end) ? 1 : 0;
    for (const id of piece) {
      ids.push(id);
      mask.push(target);
    }
  }
  const whole = tokenizer.encode(text, { addSpecialTokens: false });
  const mismatch = firstDifference(whole, ids);
  if (mismatch !== undefined) {
    throw new CalibrationError('unstable-tokenization', label,
      `a token crosses the boundary of an assistant turn near token ${mismatch} (${JSON.stringify(tokenizer.decode(whole.slice(Math.max(0, mismatch - 2), mismatch + 3)))}), so the loss mask cannot be exact`);
  }
  return { ids, lossMask: Uint8Array.from(mask) };
}

function firstDifference(a: readonly number[], b: readonly number[]): number | undefined {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return undefined;
}
