/**
 * Chats to token ids, with the loss mask over what the assistant says.
 *
 * API:
 *   `tokenizeChat(chat, tokenizer, template, {enableThinking?, endOfTurn?, maxTokens?, label?})`
 *     → `{text, ids, lossMask, targetSpans, truncated}`. lossMask[t] = 1 when token t is a target:
 *     a token of an assistant turn the model would generate (its reasoning, content, tool calls and
 *     the end-of-turn `<|im_end|>`), never the `<|im_start|>assistant\n` header, the newline after
 *     the end of turn, or any prompt token.
 *   `encodePrompt(chat, tokenizer, template, {enableThinking?})` → the prompt for generation.
 *   `encodeChat(chat, tokenizer, template, {enableThinking?, maxTokens?})` → the whole chat without
 *     a mask: for format traces (D_F), which need positions, not targets, and are long.
 *
 * How the mask is found. For assistant message i the template renders
 *   prompt_i = messages[0..i) + generation prompt      upTo_i = messages[0..i]
 * The targets start where the two renderings part (so a generation prompt that already opens
 * `<think>\n` keeps that out of the targets, as the model never generates it) and end after the
 * last end-of-turn marker of upTo_i. upTo_i must be a prefix of the whole rendering, else the
 * template rewrites history and no single sequence has all the targets: that is an error.
 * The text is then tokenized piece by piece between span boundaries, and the pieces must
 * concatenate to the tokenization of the whole text, which proves the mask is exact.
 * Cost: two renders per assistant turn, so O(turns × length); about 1 s for a 12k-token chat with
 * 120 assistant turns here, which is why format traces use encodeChat instead.
 */
import { CalibrationError } from './calibration-error.ts';
import type { Chat } from './chat-schema.ts';
import type { ChatTemplate } from './chat-template.ts';
import { FORMAT_TOKENS, type ModelTokenizer } from './tokenizer.ts';

export interface TokenizeChatOptions {
  readonly enableThinking?: boolean;
  /** Marker that closes an assistant turn and is itself a target. Default `<|im_end|>` if the
   * tokenizer has it, else the eos token. */
  readonly endOfTurn?: string;
  /** Keep at most this many tokens (the GSP traces are cut at 4096). */
  readonly maxTokens?: number;
  /** Where the chat came from (e.g. `data.jsonl:12`), for error messages. */
  readonly label?: string;
}

export interface TargetSpan {
  /** Index of the assistant message in chat.messages. */
  readonly message: number;
  /** Character range [start, end) in text. */
  readonly start: number;
  readonly end: number;
}

export interface TokenizedChat {
  readonly text: string;
  readonly ids: number[];
  readonly lossMask: Uint8Array;
  readonly targetSpans: readonly TargetSpan[];
  readonly truncated: boolean;
}

export function tokenizeChat(chat: Chat, tokenizer: ModelTokenizer, template: ChatTemplate, options: TokenizeChatOptions = {}): TokenizedChat {
  const label = options.label ?? 'chat';
  const render = (count: number, addGenerationPrompt: boolean): string =>
    template.render(chat.messages.slice(0, count), { tools: chat.tools, addGenerationPrompt, enableThinking: options.enableThinking });
  const text = render(chat.messages.length, false);
  const endOfTurn = options.endOfTurn ?? defaultEndOfTurn(tokenizer);

  const targetSpans: TargetSpan[] = [];
  chat.messages.forEach((message, i) => {
    if (message.role !== 'assistant') return;
    const upTo = render(i + 1, false);
    if (!text.startsWith(upTo)) {
      throw new CalibrationError('template', `${label}: ${template.label}`,
        `rendering messages[0..${i}] is not a prefix of rendering the whole chat (the template rewrites earlier turns); split the chat so that it ends at the turn to be scored`);
    }
    const start = commonPrefixLength(render(i, true), upTo);
    const marker = endOfTurn === undefined ? -1 : upTo.lastIndexOf(endOfTurn);
    const end = endOfTurn !== undefined && marker >= start ? marker + endOfTurn.length : upTo.length;
    if (end > start) targetSpans.push({ message: i, start, end });
  });

  const { ids, lossMask } = encodeWithSpans(text, targetSpans, tokenizer, label);
  const limit = options.maxTokens ?? ids.length;
  return {
    text,
    ids: ids.slice(0, limit),
    lossMask: lossMask.slice(0, limit),
    targetSpans,
    truncated: ids.length > limit,
  };
}

export function encodePrompt(chat: Chat, tokenizer: ModelTokenizer, template: ChatTemplate, options: { enableThinking?: boolean } = {}): { text: string; ids: number[] } {
  const text = template.render(chat.messages, { tools: chat.tools, addGenerationPrompt: true, enableThinking: options.enableThinking });
  return { text, ids: tokenizer.encode(text, { addSpecialTokens: false }) };
}

export function encodeChat(
  chat: Chat,
  tokenizer: ModelTokenizer,
  template: ChatTemplate,
  options: { enableThinking?: boolean; maxTokens?: number } = {},
): { text: string; ids: number[]; truncated: boolean } {
  const text = template.render(chat.messages, { tools: chat.tools, enableThinking: options.enableThinking });
  const ids = tokenizer.encode(text, { addSpecialTokens: false });
  const limit = options.maxTokens ?? ids.length;
  return { text, ids: ids.slice(0, limit), truncated: ids.length > limit };
}

function defaultEndOfTurn(tokenizer: ModelTokenizer): string | undefined {
  return tokenizer.tokenId(FORMAT_TOKENS.imEnd) !== undefined ? FORMAT_TOKENS.imEnd : tokenizer.configToken('eos_token');
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function encodeWithSpans(text: string, spans: readonly TargetSpan[], tokenizer: ModelTokenizer, label: string): { ids: number[]; lossMask: Uint8Array } {
  const cuts = [...new Set([0, ...spans.flatMap((s) => [s.start, s.end]), text.length])].sort((a, b) => a - b);
  const ids: number[] = [];
  const mask: number[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [from, to] = [cuts[k] as number, cuts[k + 1] as number];
    const piece = tokenizer.encode(text.slice(from, to), { addSpecialTokens: false });
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
