/**
 * Format positions for GSP: the tokens that are (part of) a format pattern such as `<tool_call>`,
 * plus a neighbourhood of ±radius tokens, clipped to the sequence.
 *
 * API: `formatPositions(ids, tokenizer, {patterns?, radius?, keptLength?})` → ascending token indices.
 * A sequence cut to a maximum length (context-length.ts) is searched whole and its positions cut
 * after, as the reference does (crane_gsp.py: positions on the full text, then `p < max_seq_len`):
 * a pattern that straddles the cut still marks its tokens before it, and a delimiter just past
 * the cut still marks its neighbourhood before it.
 * Patterns and radius default to the reference analysis' (protocol/settings-defaults.ts: Qwen's
 * six tool/turn delimiters, ±3 tokens).
 * Patterns are matched in the bytes the tokens stand for, not by id, so a pattern that is ordinary
 * text in some family (Nanbeige's `<function=`, spread over several tokens) works the same way as
 * a single added token: every token overlapping an occurrence counts.
 */
import { DEFAULT_ANALYSIS_KNOBS } from '../protocol/settings-defaults.ts';
import type { ModelTokenizer } from './tokenizer.ts';


export interface FormatPositionOptions {
  readonly patterns?: readonly string[];
  readonly radius?: number;
  /** Tokens of `ids` the model will see (the sequence's cut); absent = all. */
  readonly keptLength?: number;
}

export function formatPositions(
  ids: readonly number[],
  tokenizer: Pick<ModelTokenizer, 'tokenBytes'>,
  options: FormatPositionOptions = {},
): number[] {
  const patterns = options.patterns ?? DEFAULT_ANALYSIS_KNOBS.gsp.formatPatterns;
  const radius = options.radius ?? DEFAULT_ANALYSIS_KNOBS.gsp.radius;
  if (!Number.isInteger(radius) || radius < 0) throw new RangeError(`format radius must be a non-negative integer, got ${radius}`);

  const pieces = ids.map((id) => tokenizer.tokenBytes(id));
  const starts = new Array<number>(ids.length + 1);
  starts[0] = 0;
  pieces.forEach((piece, i) => (starts[i + 1] = (starts[i] as number) + piece.length));
  const bytes = Buffer.concat(pieces);

  // +1 at the first covered token, −1 after the last: a prefix sum then marks every position.
  const delta = new Int32Array(ids.length + 1);
  for (const pattern of patterns) {
    const needle = Buffer.from(pattern, 'utf8');
    if (needle.length === 0) continue;
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) {
      const first = tokenAt(starts, at);
      const last = tokenAt(starts, at + needle.length - 1);
      const open = Math.max(0, first - radius);
      const close = Math.min(ids.length, last + radius + 1);
      delta[open] = (delta[open] as number) + 1;
      delta[close] = (delta[close] as number) - 1;
    }
  }
  const positions: number[] = [];
  const kept = Math.min(ids.length, options.keptLength ?? ids.length);
  let depth = 0;
  for (let i = 0; i < kept; i++) {
    depth += delta[i] as number;
    if (depth > 0) positions.push(i);
  }
  return positions;
}

/** The token whose byte range holds byte `offset` (binary search over token start offsets). */
function tokenAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
