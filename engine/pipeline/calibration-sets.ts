/**
 * D_R and D_A as prompts with optional given targets, and the held-out split.
 *
 *   promptRecords(records) → PromptRecord[]     a final assistant message is the given target
 *   heldOutMask(records, fraction) → boolean[]  true = kept out of the gradients, used by verify
 *
 * The split is by content, not by line: records are ranked by the SHA-256 of their prompt and
 * the lowest round(n·f) are held out (at least one, and never all, when n ≥ 2 and f > 0). So the
 * same prompt lands on the same side whatever the file order, and adding prompts moves few others.
 */
import { createHash } from 'node:crypto';
import type { ChatRecord } from '../calibration/chat-dataset.ts';
import type { Chat, ChatMessage } from '../calibration/chat-schema.ts';
import { canonicalJson } from '../io/tokenizer-files.ts';

export interface PromptRecord {
  /** `file:line`, for messages and for the exported sequences. */
  readonly source: string;
  /** The chat without its target: what the model is prompted with. */
  readonly prompt: Chat;
  /** The given target (a final assistant message), or null when it must be decoded. */
  readonly target: ChatMessage | null;
}

export function promptRecords(records: readonly ChatRecord[]): PromptRecord[] {
  return records.map((r) => {
    const last = r.messages[r.messages.length - 1] as ChatMessage;
    const given = last.role === 'assistant' && r.messages.length > 1;
    const messages = given ? r.messages.slice(0, -1) : r.messages;
    return {
      source: `${r.file}:${r.line}`,
      prompt: r.tools === undefined ? { messages } : { messages, tools: r.tools },
      target: given ? last : null,
    };
  });
}

export function heldOutCount(n: number, fraction: number): number {
  if (n < 2 || !(fraction > 0)) return 0;
  return Math.min(n - 1, Math.max(1, Math.round(n * fraction)));
}

export function heldOutMask(records: readonly PromptRecord[], fraction: number): boolean[] {
  const ranked = records
    .map((r, index) => ({ index, hash: createHash('sha256').update(canonicalJson(r.prompt)).digest('hex') }))
    .sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : a.index - b.index));
  const mask = new Array<boolean>(records.length).fill(false);
  for (const { index } of ranked.slice(0, heldOutCount(records.length, fraction))) mask[index] = true;
  return mask;
}
