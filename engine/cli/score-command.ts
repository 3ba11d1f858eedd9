/**
 * `crane score DIR DATA.jsonl`: per-chat masked loss of a checkpoint on a JSONL of chats — the
 * loss covers the assistant turns. Useful on its own (a merged model against its parents) and
 * the way to check the runtime from outside.
 */
import { join } from 'node:path';
import { readChatJsonl } from '../calibration/chat-dataset.ts';
import { ChatTemplate } from '../calibration/chat-template.ts';
import { tokenizeChat, type TokenizedChat } from '../calibration/chat-tokens.ts';
import { contextLimitOf } from '../calibration/context-length.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM, type CausalLM } from '../model/causal-lm.ts';
import { loadCheckpointTokenizer } from '../pipeline/checkpoint-tokenizer.ts';
import { assertFiniteWeights } from '../model/finite-weights.ts';
import { initBackend } from '../tensor/backend.ts';
import { CHAT_TEMPLATE_FLAGS, chatTemplateHelp, chatTemplateOptionsFromFlags } from './chat-template-flags.ts';
import { parseCommandArgs, UsageError, type CliCommand, type CliIo } from './command.ts';
import { formatTable } from './format.ts';
import { LONG_SEQUENCES_FLAG, longSequencePolicyFromFlag, longSequencesHelp } from './long-sequences-flag.ts';
import { applyMemoryBudgetFlag, MEMORY_BUDGET_FLAG, memoryBudgetHelp } from './memory-budget-flag.ts';

const HELP = `Usage: crane score DIR DATA.jsonl [--json] [--logits N] [--batch N] [--max-tokens N]
                   [--long-sequences cut|warn|refuse] [--memory-budget SIZE]
                   [--enable-thinking on|off] [--preserve-thinking on|off] [--tool-call-format xml|json]

Scores a checkpoint on chats: for each line of DATA.jsonl ({"messages": [...], "tools"?: [...]},
OpenAI-style fields) the chat is rendered with the checkpoint's chat template and tokenized,
and the mean next-token cross-entropy over the assistant turns' tokens (their content, tool
calls and end-of-turn token; not the prompt) is reported with the number of target tokens.
The last line is the mean over chats. Before anything is scored the tokenizer's ids are checked
against the model's embedding and every weight is checked to be finite (NaN/Inf are refused,
naming shard and tensor).

Options:
  --json           machine-readable output
  --logits N       also output the logits of the first N positions of every chat (implies --json)
  --batch N        chats per forward pass (default 8; each pass reads every layer once)
  --max-tokens N   truncate chats to N tokens (default: no limit)
${longSequencesHelp(19)}
${chatTemplateHelp(19)}
${memoryBudgetHelp(19)}
  -h, --help

The compute backend is chosen as for \`crane doctor\` (CRANE_BACKEND to force one).`;

interface ChatScore {
  readonly line: number;
  readonly tokens: number;
  readonly targets: number;
  readonly loss: number;
  logits?: number[][];
}

export const scoreCommand: CliCommand = {
  name: 'score',
  summary: 'masked loss of a checkpoint on a JSONL of chats (assistant turns), optionally logits',
  help: HELP,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs(args, {
      json: { type: 'boolean' }, logits: { type: 'string' }, batch: { type: 'string', default: '8' }, 'max-tokens': { type: 'string' }, ...LONG_SEQUENCES_FLAG, ...MEMORY_BUDGET_FLAG, ...CHAT_TEMPLATE_FLAGS,
    });
    if (positionals.length !== 2) throw new UsageError('expected a checkpoint folder and a JSONL file');
    const [dir, data] = positionals as [string, string];
    const batchSize = positiveInt(values.batch, '--batch');
    const logitRows = values.logits === undefined ? 0 : positiveInt(values.logits, '--logits');
    const maxTokens = values['max-tokens'] === undefined ? undefined : positiveInt(values['max-tokens'], '--max-tokens');
    const policy = longSequencePolicyFromFlag(values['long-sequences']);
    const templateOptions = chatTemplateOptionsFromFlags(values) ?? {};
    applyMemoryBudgetFlag(values['memory-budget']);
    const chats = await readChatJsonl(data);
    const checkpoint = await Checkpoint.open(dir);
    try {
      const tokenizer = await loadCheckpointTokenizer(checkpoint);
      const template = ChatTemplate.fromTokenizer(tokenizer);
      const context = contextLimitOf(checkpoint.config, join(dir, 'config.json'), policy, (warning) => io.err(`warning: ${warning}`));
      const tokenized = chats.map((chat) => tokenizeChat(chat, tokenizer, template, { ...templateOptions, label: `${data}:${chat.line}`, maxTokens, context }));
      // Same refusal as analyze and merge: one NaN weight would make every loss NaN, exit 0.
      await assertFiniteWeights([checkpoint], { outcome: 'nothing was scored' });
      await initBackend();
      // One model for both passes: its embedding is read from disk once.
      const model = loadCausalLM(checkpoint);
      const scores = await scoreChats(model, tokenized, chats.map((c) => c.line), batchSize, io);
      if (logitRows > 0) await addLogits(model, tokenized, scores, logitRows);
      const mean = meanLoss(scores);
      if (values.json === true || logitRows > 0) io.out(JSON.stringify({ checkpoint: dir, data, meanLoss: mean, chats: scores }));
      else io.out(formatScores(scores, mean));
      return 0;
    } finally {
      await checkpoint.close();
    }
  },
};

async function scoreChats(model: CausalLM, chats: readonly TokenizedChat[], lines: readonly number[], batchSize: number, io: CliIo): Promise<ChatScore[]> {
  const scores: ChatScore[] = [];
  for (let start = 0; start < chats.length; start += batchSize) {
    const batch = chats.slice(start, start + batchSize);
    const results = await model.sequenceLosses(batch.map((c) => ({ ids: c.ids, targets: c.lossMask })));
    results.forEach((r, i) => scores.push({ line: lines[start + i] as number, tokens: (batch[i] as TokenizedChat).ids.length, targets: r.targets, loss: r.loss }));
    if (io.isTty) io.err(`scored ${scores.length}/${chats.length} chats`);
  }
  return scores;
}

async function addLogits(model: CausalLM, chats: readonly TokenizedChat[], scores: ChatScore[], rows: number): Promise<void> {
  for (const [i, chat] of chats.entries()) {
    const positions = Array.from({ length: Math.min(rows, chat.ids.length) }, (_, t) => t);
    const logits = await model.forwardLogits(chat.ids, positions);
    (scores[i] as ChatScore).logits = positions.map((t) => Array.from(logits.values.subarray(t * logits.vocab, (t + 1) * logits.vocab)));
  }
}

/** Mean of the per-chat losses over chats that have targets. */
function meanLoss(scores: readonly ChatScore[]): number | null {
  const scored = scores.filter((s) => s.targets > 0);
  return scored.length === 0 ? null : scored.reduce((sum, s) => sum + s.loss, 0) / scored.length;
}

function formatScores(scores: readonly ChatScore[], mean: number | null): string {
  const rows = scores.map((s) => [String(s.line), String(s.tokens), String(s.targets), s.targets > 0 ? s.loss.toFixed(4) : '(no targets)']);
  return `${formatTable(['line', 'tokens', 'targets', 'loss'], rows)}\nmean loss over ${scores.filter((s) => s.targets > 0).length} chats: ${mean === null ? 'n/a' : mean.toFixed(4)}`;
}

function positiveInt(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}
