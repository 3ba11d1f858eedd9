/**
 * Stage `targets`: every calibration chat as the exact token sequence the later stages use.
 *
 *   targetsKey(ctx) → StageKey
 *   runTargets(ctx, clock) → writes stages/targets/sequences.jsonl (calibration-sequences.ts)
 *   answerSet(ctx, renderer, cache, set, records, progress) → one set's sequences (Verify's eval files too)
 *
 * Every D_R and D_A chat is split 'train' (the gradients use it) unless the analysis' evaluation
 * set is a held-out share, whose prompts are split 'heldout'; an evaluation FILE changes nothing
 * here, so choosing one re-runs no stage.
 * D_R prompts without a given target are answered by the Thinking model, D_A prompts by the
 * Instruct model (greedy, stopping at <|im_end|> / eos or at the set's token budget), through
 * the decode cache. Everything is rendered with the INSTRUCT model's template and tokenizer (the
 * spec), the target as a plain assistant message — tokenizeChat then puts the loss mask on the
 * assistant tokens only, end of turn included. A target cut by the budget still gets the
 * template's end-of-turn token as its last target. When a decoded text does not re-tokenize
 * exactly at the turn boundary (an undertrained model that starts with "\n\n", which merges with
 * the template's "assistant\n" into one token), the sequence is the prompt's ids followed by the
 * generated ids themselves, with the mask on the generated ones — exactly what the model
 * produced, which is what the spec scores (`target: 'decoded-ids'` in the sequence file). D_F chats are rendered whole (encodeChat),
 * cut at gsp.maxTokens, and their format positions found with the settings' patterns and radius.
 * Every render takes the analysis' chat-template options (settings.analysis.chatTemplate:
 * enable_thinking, preserve_thinking, tool_call_format), Verify's evaluation chats included.
 * Every sequence longer than Instruct's max_position_embeddings is cut (default), kept or refused
 * as settings.longSequences says, with a warning naming file:line (calibration/context-length.ts);
 * under cut and refuse, decoding stops at the context. Instruct's tokenizer must fit its embedding.
 */
import { join } from 'node:path';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { readChatJsonl } from '../calibration/chat-dataset.ts';
import type { ChatMessage } from '../calibration/chat-schema.ts';
import { ChatTemplate, type ChatTemplateOptions } from '../calibration/chat-template.ts';
import { encodeChat, encodePrompt, tokenizeChat } from '../calibration/chat-tokens.ts';
import { contextLimitOf, DEFAULT_LONG_SEQUENCE_POLICY, keptLength, replyBudget, type ContextLimit, type LongSequencePolicy } from '../calibration/context-length.ts';
import { formatPositions } from '../calibration/format-positions.ts';
import { FORMAT_TOKENS, type ModelTokenizer } from '../calibration/tokenizer.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { heldOutShare } from '../protocol/evaluation-set.ts';
import { heldOutMask, promptRecords, type PromptRecord } from './calibration-sets.ts';
import { loadCheckpointTokenizer } from './checkpoint-tokenizer.ts';
import { writeSequences, type CalibrationSequence } from './calibration-sequences.ts';
import { DecodeCache, decodeKey } from './decode-cache.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { throwIfCancelled, type StageClock } from './progress.ts';
import type { StageKey } from './stage-store.ts';

export function targetsKey(ctx: PipelineContext): StageKey {
  const { analysis } = ctx.settings;
  const { inputs } = ctx;
  return {
    instruct: inputs.instruct, thinking: inputs.thinking, reasoning: inputs.reasoning, agent: inputs.agent, format: inputs.format,
    reasoningMaxNewTokens: analysis.reasoningMaxNewTokens,
    agentMaxNewTokens: analysis.agentMaxNewTokens,
    heldOutFraction: heldOutShare(analysis.evaluation),
    formatPatterns: analysis.gsp.formatPatterns,
    radius: analysis.gsp.radius,
    formatMaxTokens: analysis.gsp.maxTokens,
    // Absent for projects that never set it: undefined drops out of the key, which stays as it was.
    chatTemplate: analysis.chatTemplate,
    longSequences: longSequencePolicy(ctx),
  };
}

function longSequencePolicy(ctx: PipelineContext): LongSequencePolicy {
  return ctx.settings.longSequences ?? DEFAULT_LONG_SEQUENCE_POLICY;
}

export interface Renderer {
  readonly tokenizer: ModelTokenizer;
  readonly template: ChatTemplate;
  /** Instruct's max_position_embeddings and the policy for longer sequences; warnings go to onLog. */
  readonly context: ContextLimit | undefined;
  /** The analysis' template variables (enable_thinking, preserve_thinking, tool_call_format). */
  readonly templateOptions: ChatTemplateOptions;
}

/** Instruct's tokenizer, template and context: what every sequence is rendered with (the spec). */
export async function chatRenderer(ctx: PipelineContext): Promise<Renderer> {
  const tokenizer = await loadCheckpointTokenizer(ctx.instruct);
  const warn = (warning: string): void => ctx.callbacks.onLog?.(`warning: ${warning}`);
  const context = contextLimitOf(ctx.instruct.config, join(ctx.instruct.dir, 'config.json'), longSequencePolicy(ctx), warn);
  return { tokenizer, template: ChatTemplate.fromTokenizer(tokenizer), context, templateOptions: ctx.settings.analysis.chatTemplate ?? {} };
}

export async function runTargets(ctx: PipelineContext, clock: StageClock): Promise<void> {
  const { analysis } = ctx.settings;
  const renderer = await chatRenderer(ctx);
  const reasoning = promptRecords(await readChatJsonl(analysis.calibration.reasoning));
  const agent = promptRecords(await readChatJsonl(analysis.calibration.agent));
  const cache = await DecodeCache.open(ctx.paths.decodeCache);
  const total = reasoning.length + agent.length;
  let done = 0;
  const split = async (set: AnsweredSet, records: readonly PromptRecord[]) => {
    const heldOut = heldOutMask(records, heldOutShare(analysis.evaluation));
    const sequences = await answerSet(ctx, renderer, cache, set, records, {
      stage: 'targets', onEach: (i) => clock.report(++done / (total + 1), `${set} ${i + 1}/${records.length}`),
    });
    return sequences.map((sequence, i): CalibrationSequence => ({ ...sequence, split: heldOut[i] === true ? 'heldout' : 'train' }));
  };
  const sequences = [...await split('reasoning', reasoning), ...await split('agent', agent), ...await formatSequences(ctx, renderer)];
  await writeSequences(ctx.paths.sequences, sequences);
  clock.report(1);
}

export type AnsweredSet = 'reasoning' | 'agent';

/**
 * One set's prompts as sequences (split 'train'): given targets as they are, the others decoded
 * through the cache — D_R by Thinking, D_A by Instruct, each at its set's token budget.
 */
export async function answerSet(
  ctx: PipelineContext, renderer: Renderer, cache: DecodeCache, set: AnsweredSet, records: readonly PromptRecord[],
  progress: { readonly stage: string; readonly onEach: (index: number) => void },
): Promise<CalibrationSequence[]> {
  const { analysis } = ctx.settings;
  const { model, hashes, maxNewTokens } = set === 'reasoning'
    ? { model: ctx.thinking, hashes: ctx.inputs.thinking, maxNewTokens: analysis.reasoningMaxNewTokens }
    : { model: ctx.instruct, hashes: ctx.inputs.instruct, maxNewTokens: analysis.agentMaxNewTokens };
  const out: CalibrationSequence[] = [];
  for (const [i, record] of records.entries()) {
    throwIfCancelled(ctx.callbacks.signal, progress.stage);
    const decoded = record.target === null ? await decodeTarget(ctx, renderer, cache, record, model, hashes, maxNewTokens) : undefined;
    out.push({ set, split: 'train', source: record.source, ...tokenized(renderer, record, decoded) });
    progress.onEach(i);
  }
  return out;
}

interface Decoded {
  readonly message: ChatMessage;
  readonly prompt: readonly number[];
  readonly tokens: readonly number[];
}

function tokenized(renderer: Renderer, record: PromptRecord, decoded: Decoded | undefined): Pick<CalibrationSequence, 'ids' | 'lossMask' | 'target'> {
  const target = decoded?.message ?? (record.target as ChatMessage);
  const chat = { ...record.prompt, messages: [...record.prompt.messages, target] };
  try {
    const { ids, lossMask } = tokenizeChat(chat, renderer.tokenizer, renderer.template, { ...renderer.templateOptions, label: record.source, context: renderer.context });
    return { ids, lossMask: Array.from(lossMask), target: decoded === undefined ? 'given' : 'decoded' };
  } catch (error) {
    if (decoded === undefined || !(error instanceof CalibrationError && error.code === 'unstable-tokenization')) throw error;
    const kept = keptLength(decoded.prompt.length + decoded.tokens.length, renderer.context, record.source);
    const ids = [...decoded.prompt, ...decoded.tokens].slice(0, kept);
    return { ids, lossMask: ids.map((_, t) => (t < decoded.prompt.length ? 0 : 1)), target: 'decoded-ids' };
  }
}

async function decodeTarget(
  ctx: PipelineContext, renderer: Renderer, cache: DecodeCache, record: PromptRecord,
  model: Checkpoint, hashes: Readonly<Record<string, string>>, maxNewTokens: number,
): Promise<Decoded> {
  const { tokenizer, template } = renderer;
  const prompt = encodePrompt(record.prompt, tokenizer, template, renderer.templateOptions).ids;
  const budget = replyBudget(prompt.length, maxNewTokens, renderer.context);
  const lm = loadCausalLM(model);
  const stopTokenIds = [...new Set([tokenizer.tokenId(FORMAT_TOKENS.imEnd), tokenizer.formatTokenIds().eos, ...lm.spec.eosTokenIds])]
    .filter((id): id is number => id !== undefined)
    .sort((a, b) => a - b);
  const key = decodeKey({ model: hashes, prompt, maxNewTokens: budget, stopTokenIds });
  let decoded = cache.get(key);
  if (decoded === undefined) {
    const result = await lm.greedyDecode(prompt, { maxNewTokens: budget, stopTokenIds, signal: ctx.callbacks.signal });
    decoded = { tokens: result.tokens, stopReason: result.stopReason };
    await cache.put(key, decoded);
  }
  // The stop token is the template's end of turn: the template writes it back when rendering.
  const body = decoded.stopReason === 'stop-token' ? decoded.tokens.slice(0, -1) : decoded.tokens;
  return { message: { role: 'assistant', content: tokenizer.decode([...body]) }, prompt, tokens: decoded.tokens };
}

async function formatSequences(ctx: PipelineContext, renderer: Renderer): Promise<CalibrationSequence[]> {
  const { gsp, calibration } = ctx.settings.analysis;
  const records = await readChatJsonl(calibration.format);
  return records.map((chat) => {
    const { ids, wholeIds } = encodeChat(chat, renderer.tokenizer, renderer.template, {
      ...renderer.templateOptions, maxTokens: gsp.maxTokens, context: renderer.context, label: `${chat.file}:${chat.line}`,
    });
    // Found on the whole sequence, then cut, as the reference (format-positions.ts).
    const positions = formatPositions(wholeIds, renderer.tokenizer, { patterns: gsp.formatPatterns, radius: gsp.radius, keptLength: ids.length });
    return { set: 'format', split: 'train', source: `${chat.file}:${chat.line}`, ids, formatPositions: positions };
  });
}
