/**
 * Chats to token ids, with the loss mask over what the assistant says.
 *
 * API:
 *   `tokenizeChat(chat, tokenizer, template, {enableThinking?, preserveThinking?, toolCallFormat?, endOfTurn?, maxTokens?, context?, label?})`
 *     → `{text, ids, lossMask, targetSpans, truncated}`. lossMask[t] = 1 when token t is a target:
 *     a token of an assistant turn the model would generate (its reasoning, content, tool calls and
 *     the end-of-turn `<|im_end|>`), never the `<|im_start|>assistant\n` header, the newline after
 *     the end of turn, or any prompt token.
 *   `tokenizeChatPerTurn(...)` → one such sequence per assistant turn (templates that rewrite history).
 *   `encodePrompt(chat, tokenizer, template, templateOptions?)` → the prompt for generation.
 *   `encodeChat(chat, tokenizer, template, {...templateOptions, maxTokens?, context?, label?})` → the
 *     whole chat without a mask: for format traces (D_F), which need positions, not targets, and are long;
 *     `wholeIds` are its tokens before any cut (format positions are found on them, then cut).
 * `context` applies the model's context length and the user's policy for longer sequences
 * (context-length.ts) after the `maxTokens` cut. The template options (ChatTemplateOptions:
 * enableThinking, preserveThinking, toolCallFormat) go to every render of the chat.
 * Nothing here adds special tokens: a tokenizer whose post-processor prepends a BOS (Nanbeige's
 * <|im_start|>) would otherwise double the template's own and shift every mask position by one.
 *
 * How the mask is found. For assistant message i the template renders
 *   prompt_i = messages[0..i) + generation prompt      upTo_i = messages[0..i]
 * The targets start where the two renderings part (so a generation prompt that already opens
 * `<think>\n` keeps that out of the targets, as the model never generates it) and end after the
 * last end-of-turn marker of upTo_i. upTo_i must be a prefix of the whole rendering, else the
 * template rewrites history and no single sequence has all the targets: that is an error (use
 * tokenizeChatPerTurn). span-encoding.ts then proves the token mask exact.
 * Cost: two renders per assistant turn, so O(turns × length); about 1 s for a 12k-token chat with
 * 120 assistant turns here, which is why format traces use encodeChat instead.
 */
import { CalibrationError } from './calibration-error.ts';
import type { Chat } from './chat-schema.ts';
import { templateOptionsOf, type ChatTemplate, type ChatTemplateOptions } from './chat-template.ts';
import { keptLength, type ContextLimit } from './context-length.ts';
import { encodeWithSpans, type Span } from './span-encoding.ts';
import { FORMAT_TOKENS, type ModelTokenizer } from './tokenizer.ts';

export interface TokenizeChatOptions extends ChatTemplateOptions {
  /** Marker that closes an assistant turn and is itself a target. Default `<|im_end|>` if the
   * tokenizer has it, else the eos token. */
  readonly endOfTurn?: string;
  /** Keep at most this many tokens (the GSP traces are cut at 4096). */
  readonly maxTokens?: number;
  /** The model's context: what happens to a sequence longer than it (context-length.ts). */
  readonly context?: ContextLimit | undefined;
  /** Where the chat came from (e.g. `data.jsonl:12`), for error messages. */
  readonly label?: string;
}

export interface TargetSpan extends Span {
  /** Index of the assistant message in chat.messages; start/end are character offsets in text. */
  readonly message: number;
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
  const turns = assistantTurns(chat, tokenizer, template, options);
  const text = turns.render(chat.messages.length, false);
  const targetSpans = turns.indices.map((i) => {
    const turn = turns.target(i);
    if (!text.startsWith(turn.upTo)) {
      throw new CalibrationError('template', `${label}: ${template.label}`,
        `rendering messages[0..${i}] is not a prefix of rendering the whole chat (the template rewrites earlier turns); use tokenizeChatPerTurn, or split the chat so that it ends at the turn to be scored`);
    }
    return turn.span;
  });
  return finish(text, targetSpans.filter((s) => s.end > s.start), tokenizer, label, options);
}

/**
 * One sequence per assistant turn: messages[0..i] with only turn i as target. For templates that
 * rewrite history (Qwen3's drop reasoning of turns before the last user query) this scores each
 * turn in the context the model really saw when it produced it.
 */
export function tokenizeChatPerTurn(chat: Chat, tokenizer: ModelTokenizer, template: ChatTemplate, options: TokenizeChatOptions = {}): TokenizedChat[] {
  const label = options.label ?? 'chat';
  const turns = assistantTurns(chat, tokenizer, template, options);
  return turns.indices.map((i) => {
    const { upTo, span } = turns.target(i);
    return finish(upTo, span.end > span.start ? [span] : [], tokenizer, `${label} turn ${i}`, options);
  });
}

/** Targets of turn i: from where prompt_i and upTo_i part to just after the end-of-turn marker. */
function assistantTurns(chat: Chat, tokenizer: ModelTokenizer, template: ChatTemplate, options: TokenizeChatOptions) {
  const endOfTurn = options.endOfTurn ?? defaultEndOfTurn(tokenizer);
  const render = (count: number, addGenerationPrompt: boolean): string =>
    template.render(chat.messages.slice(0, count), { ...templateOptionsOf(options), tools: chat.tools, addGenerationPrompt });
  const indices = chat.messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const target = (i: number): { upTo: string; span: TargetSpan } => {
    const upTo = render(i + 1, false);
    const start = commonPrefixLength(render(i, true), upTo);
    const marker = endOfTurn === undefined ? -1 : upTo.lastIndexOf(endOfTurn);
    const end = endOfTurn !== undefined && marker >= start ? marker + endOfTurn.length : upTo.length;
    return { upTo, span: { message: i, start, end } };
  };
  return { render, indices, target };
}

function finish(text: string, targetSpans: readonly TargetSpan[], tokenizer: ModelTokenizer, label: string, options: TokenizeChatOptions): TokenizedChat {
  const { ids, lossMask } = encodeWithSpans(text, targetSpans, tokenizer, label);
  const limit = lengthLimit(ids.length, label, options);
  return { text, ids: ids.slice(0, limit), lossMask: lossMask.slice(0, limit), targetSpans, truncated: ids.length > limit };
}

/** maxTokens is the caller's own cut; the context policy applies to what is left of the sequence. */
function lengthLimit(length: number, label: string, options: { maxTokens?: number; context?: ContextLimit | undefined }): number {
  return keptLength(Math.min(length, options.maxTokens ?? length), options.context, label);
}

export function encodePrompt(chat: Chat, tokenizer: ModelTokenizer, template: ChatTemplate, options: ChatTemplateOptions = {}): { text: string; ids: number[] } {
  const text = template.render(chat.messages, { ...templateOptionsOf(options), tools: chat.tools, addGenerationPrompt: true });
  return { text, ids: tokenizer.encode(text, { addSpecialTokens: false }) };
}

export function encodeChat(
  chat: Chat,
  tokenizer: ModelTokenizer,
  template: ChatTemplate,
  options: ChatTemplateOptions & { maxTokens?: number; context?: ContextLimit | undefined; label?: string } = {},
): { text: string; ids: number[]; truncated: boolean; wholeIds: number[] } {
  const text = template.render(chat.messages, { ...templateOptionsOf(options), tools: chat.tools });
  const ids = tokenizer.encode(text, { addSpecialTokens: false });
  const limit = lengthLimit(ids.length, options.label ?? 'chat', options);
  return { text, ids: ids.slice(0, limit), truncated: ids.length > limit, wholeIds: ids };
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
