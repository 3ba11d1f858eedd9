/**
 * Which lm_head rows an edit keeps at θ_I. The CRANE reference keeps every token the tokenizer
 * adds (tokenizer.json `added_tokens`, special or not: Qwen3's <tool_call> … </tool_response> are
 * `special: false` and still protected) but the think pair, which has its own rule (thinkRows).
 * The user may add or remove ids on top. Node-free, so the engine, the CLI and the UI derive,
 * edit and print the set the same way.
 *
 *   tokenRowsFromAdded(added) → { think, special }   the think pair by content, the rest protected
 *   applyProtectedEdits(ids, edits) → (ids ∖ remove) ∪ add, ascending
 *   parseProtectedEdits('+151669,-151650') → edits;  formatProtectedEdits(edits) → the same text
 *   formatIdRanges([1, 2, 3, 7]) → '1–3, 7'
 */
import type { ProtectedTokenEdits, TokenRows } from './settings-schemas.ts';

/** The contents of the think pair, which are never protected (they move by thinkRows). */
const THINK_PAIR = ['<think>', '</think>'] as const;

export interface AddedToken {
  readonly id: number;
  readonly content: string;
}

/** Think rows and protected rows of a tokenizer's added tokens (each list ascending, no repeats). */
export function tokenRowsFromAdded(added: Iterable<AddedToken>): TokenRows {
  const think = new Set<number>();
  const special = new Set<number>();
  for (const token of added) ((THINK_PAIR as readonly string[]).includes(token.content) ? think : special).add(token.id);
  return { think: ascending(think), special: ascending(special) };
}

export function applyProtectedEdits(ids: readonly number[], edits: ProtectedTokenEdits | undefined): number[] {
  if (edits === undefined) return ascending(ids);
  const removed = new Set(edits.remove);
  return ascending([...ids.filter((id) => !removed.has(id)), ...edits.add]);
}

/**
 * `+151669,-151650` (a bare id adds it; spaces and empty items are ignored). An id both added and
 * removed is refused: the text would say two things.
 */
export function parseProtectedEdits(text: string): ProtectedTokenEdits {
  const add = new Set<number>();
  const remove = new Set<number>();
  for (const item of text.split(/[\s,]+/).filter((s) => s !== '')) {
    const m = /^([+-]?)(\d{1,9})$/.exec(item);
    if (m === null) throw new RangeError(`"${item}" is not a token id edit: write +ID to protect a row, -ID to release one`);
    (m[1] === '-' ? remove : add).add(Number(m[2]));
  }
  const both = [...add].filter((id) => remove.has(id));
  if (both.length > 0) throw new RangeError(`token id ${both[0]} is both added and removed`);
  return { add: ascending(add), remove: ascending(remove) };
}

export function formatProtectedEdits(edits: ProtectedTokenEdits | undefined): string {
  if (edits === undefined) return '';
  return [...edits.add.map((id) => `+${id}`), ...edits.remove.map((id) => `-${id}`)].join(', ');
}

/** Ascending ids with runs of consecutive ids folded into `a–b`. */
export function formatIdRanges(ids: readonly number[]): string {
  const sorted = ascending(ids);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

function ascending(ids: Iterable<number>): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
