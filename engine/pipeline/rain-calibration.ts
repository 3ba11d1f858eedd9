/**
 * RAIN's two calibration files, read in the reference's own formats and turned into token ids and
 * token positions with the Thinking checkpoint's tokenizer and chat template.
 *
 *   readRainReasoningPrompts(file, tokenizer, template, maxSamples) → { prompts, skipped }   stage 1 (LRM prompts)
 *   readRainInstructionPrompts(file, tokenizer, template, maxTokens) → prompts                stage 2 (instruction prompts)
 *
 * Both build the reference's text: chat_template([user: prompt], add_generation_prompt) +
 * reasoning + "\n</think>\n\n" + response.
 * - Reasoning file (reasoning_calibration_set.json): a JSON array (or one object) of strings or
 *   {prompt | text, reasoning, response}. A prompt is used when its text holds exactly two
 *   <think>/</think> boundary tokens (the reference skips the others) and has at most 7168 tokens
 *   (the reference's max_seq_len: longer ones are skipped, not cut).
 * - Instruction file (instruction_calibration_set.jsonl): one {prompt, reason, response,
 *   related_prompt_list: [{instruction_id, prompt_spans, response_spans,
 *   unrelated_response_spans}], unrelated_response_spans} per line. Span strings are found in the
 *   full text (every non-overlapping occurrence) BEFORE the sequence is cut at `maxTokens` (the
 *   reference's QP_MAX_SEQ_LEN): positions past the cut are dropped, the span counts are not.
 *
 * Deliberate differences: a record the reference would coerce (a dict without prompt becomes
 * its Python repr; a JSONL line that is not JSON is skipped with a print) is refused naming
 * file:line; positions come from each token's bytes, so the tokenizer must spell the text byte for
 * byte: byte-level (Qwen's, Llama 3's) or Metaspace with byte fallback (Llama 2's, Nanbeige's; a
 * ▁ its pre-tokenizer prepends is not counted), else the file is refused naming the byte.
 */
import { z } from 'zod';
import { CalibrationError } from '../calibration/calibration-error.ts';
import type { ChatTemplate } from '../calibration/chat-template.ts';
import type { ModelTokenizer } from '../calibration/tokenizer.ts';
import type { RainInstructionSpans, RainPromptSpans } from '../crane/rain-align-leak.ts';
import { readTextFile } from '../io/input-file.ts';

/** The reference skips reasoning prompts longer than this (nullspace_projection_compute.py max_seq_len). */
export const RAIN_FEATURE_MAX_TOKENS = 7168;

export interface RainReasoningPrompt {
  readonly ids: readonly number[];
  /** Token positions of <think> and </think>. */
  readonly thinkStart: number;
  readonly thinkEnd: number;
}

export interface RainInstructionPrompt {
  readonly ids: readonly number[];
  readonly spans: RainPromptSpans;
}

const spanList = z.array(z.unknown()).optional();
const reasoningRecord = z.union([
  z.string(),
  z.looseObject({ prompt: z.string().optional(), text: z.string().optional(), reasoning: z.string().optional(), response: z.string().optional() })
    .refine((r) => r.prompt !== undefined || r.text !== undefined, { message: 'needs a "prompt" (or "text") string' }),
]);
const instructionRecord = z.looseObject({
  prompt: z.string().optional(),
  reason: z.string().optional(),
  response: z.string().optional(),
  related_prompt_list: z.array(z.unknown()).optional(),
  unrelated_response_spans: spanList,
});
const instructionEntry = z.looseObject({ prompt_spans: spanList, response_spans: spanList, unrelated_response_spans: spanList });

export async function readRainReasoningPrompts(
  file: string, tokenizer: ModelTokenizer, template: ChatTemplate, maxSamples: number,
): Promise<{ prompts: RainReasoningPrompt[]; skipped: number }> {
  let json: unknown;
  try {
    json = JSON.parse(await readTextFile(file));
  } catch (error) {
    if (error instanceof SyntaxError) throw new CalibrationError('json', file, `is not JSON (${error.message})`);
    throw error;
  }
  const records = Array.isArray(json) ? json : [json];
  const prompts: RainReasoningPrompt[] = [];
  let skipped = 0;
  for (const [index, raw] of records.slice(0, maxSamples).entries()) {
    const parsed = reasoningRecord.safeParse(raw);
    if (!parsed.success) throw new CalibrationError('dataset', `${file}[${index}]`, `is not a reasoning sample: ${z.prettifyError(parsed.error)}`);
    const record = typeof parsed.data === 'string' ? { prompt: parsed.data } : parsed.data;
    const text = rainText(template, record.prompt ?? record.text ?? '', record.reasoning ?? '', record.response ?? '');
    const located = locateTokens(tokenizer, text, `${file}[${index}]`);
    const bounds = [...new Set([...occurrences(text, '<think>'), ...occurrences(text, '</think>')].map((c) => located.tokenAt(c.start)))].sort((a, b) => a - b);
    if (bounds.length !== 2 || located.ids.length > RAIN_FEATURE_MAX_TOKENS) {
      skipped++;
      continue;
    }
    prompts.push({ ids: located.ids, thinkStart: bounds[0] as number, thinkEnd: bounds[1] as number });
  }
  return { prompts, skipped };
}

export async function readRainInstructionPrompts(file: string, tokenizer: ModelTokenizer, template: ChatTemplate, maxTokens: number): Promise<RainInstructionPrompt[]> {
  const lines = (await readTextFile(file)).split('\n');
  const prompts: RainInstructionPrompt[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const where = `${file}:${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new CalibrationError('json', where, `is not JSON (${(error as Error).message})`);
    }
    const parsed = instructionRecord.safeParse(json);
    if (!parsed.success) throw new CalibrationError('dataset', where, `is not an instruction sample: ${z.prettifyError(parsed.error)}`);
    const record = parsed.data;
    const text = rainText(template, record.prompt ?? '', record.reason ?? '', record.response ?? '');
    const located = locateTokens(tokenizer, text, where);
    const find = (spans: readonly unknown[] | undefined) => tokenSpans(text, spans, located);
    const instructions: RainInstructionSpans[] = (record.related_prompt_list ?? []).flatMap((item) => {
      const entry = instructionEntry.safeParse(item);
      // The reference passes over entries that are not objects.
      if (!entry.success || typeof item !== 'object' || item === null || Array.isArray(item)) return [];
      const prompt = find(entry.data.prompt_spans);
      const related = find([...(entry.data.prompt_spans ?? []), ...(entry.data.response_spans ?? [])]);
      const unrelated = find(entry.data.unrelated_response_spans);
      return [{ instruction: union(prompt), related: union(related), unrelated: union(unrelated), relatedCount: related.length, unrelatedCount: unrelated.length }];
    });
    const global = find(record.unrelated_response_spans);
    prompts.push({ ids: located.ids.slice(0, maxTokens), spans: { instructions, globalUnrelated: union(global), globalUnrelatedCount: global.length } });
  }
  return prompts;
}

/** The reference's full text of one sample (build_full_text_from_sample, read_json_samples_robust). */
export function rainText(template: ChatTemplate, prompt: string, reasoning: string, response: string): string {
  return `${template.render([{ role: 'user', content: prompt }], { addGenerationPrompt: true })}${reasoning}\n</think>\n\n${response}`;
}

interface LocatedText {
  readonly ids: number[];
  /** The token holding the character at this (UTF-16) index of the text. */
  readonly tokenAt: (charIndex: number) => number;
  /** The first and last token of the text between these (UTF-16) indices, end exclusive. */
  readonly tokensOf: (start: number, end: number) => [number, number];
}

function locateTokens(tokenizer: ModelTokenizer, text: string, where: string): LocatedText {
  const ids = tokenizer.encode(text, { addSpecialTokens: false });
  const ends = alignTokenBytes(tokenizer, ids, Buffer.from(text, 'utf8'), where);
  const tokenAtByte = (byte: number) => {
    // First token whose end lies past the byte (binary search over the running ends).
    let [lo, hi] = [0, ends.length - 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ends[mid] as number) > byte) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const byteAt = (charIndex: number) => Buffer.byteLength(text.slice(0, charIndex), 'utf8');
  return { ids, tokenAt: (charIndex) => tokenAtByte(byteAt(charIndex)), tokensOf: (start, end) => [tokenAtByte(byteAt(start)), tokenAtByte(byteAt(end) - 1)] };
}

/**
 * The end byte (in the text's UTF-8) of every token, from the tokens' exact bytes: each token
 * must spell the next bytes of the text. A Metaspace tokenizer's token may carry a ▁ prepended
 * by the pre-tokenizer (prepend_scheme "first" or "always") that the text does not have: that
 * leading space is not counted. Anything else that does not line up refuses the file.
 */
function alignTokenBytes(tokenizer: ModelTokenizer, ids: readonly number[], text: Buffer, where: string): number[] {
  const refuse = (why: string): never => {
    throw new CalibrationError('tokenizer', tokenizer.source.labels.tokenizerJson,
      `does not reproduce ${where} byte for byte (${why}); RAIN's span positions need a byte-level or Metaspace tokenizer`);
  };
  if (!tokenizer.exactTokenBytes) refuse('its tokens are neither byte-level nor Metaspace, so their exact bytes are unknown');
  const spells = (bytes: Uint8Array, from: number) => text.subarray(from, from + bytes.length).equals(bytes);
  const ends: number[] = [];
  let at = 0;
  for (const id of ids) {
    const bytes = tokenizer.tokenBytes(id);
    if (spells(bytes, at)) at += bytes.length;
    else if (!tokenizer.byteLevel && bytes[0] === 0x20 && spells(bytes.subarray(1), at)) at += bytes.length - 1;
    else refuse(`at byte ${at}, token ${id} spells ${JSON.stringify(Buffer.from(bytes).toString('utf8'))} but the text has ${JSON.stringify(text.subarray(at, at + bytes.length).toString('utf8'))}`);
    ends.push(at);
  }
  if (at !== text.length) refuse(`its tokens spell ${at} of the text's ${text.length} bytes`);
  return ends;
}

/** Every non-overlapping occurrence of `needle`, left to right (Python's re.finditer of re.escape). */
function occurrences(text: string, needle: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push({ start: at, end: at + needle.length });
  return found;
}

/** [first, last] token of every occurrence of every non-blank span string. */
function tokenSpans(text: string, spans: readonly unknown[] | undefined, located: LocatedText): [number, number][] {
  return (spans ?? []).flatMap((span) => (typeof span === 'string' && span.trim() !== '' ? occurrences(text, span) : []))
    .map(({ start, end }) => located.tokensOf(start, end));
}

function union(spans: readonly [number, number][]): number[] {
  const all = new Set<number>();
  for (const [first, last] of spans) for (let t = first; t <= last; t++) all.add(t);
  return [...all].sort((a, b) => a - b);
}
