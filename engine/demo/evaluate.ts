/**
 * Evaluates a checkpoint on the demo's held-out tasks: greedy-decodes each prompt (stopping at
 * the end-of-turn token) and scores the reply. Reports tool-call validity, accuracy per family
 * and mean generated tokens — the columns of `npm run demo:eval`.
 */
import type { Chat } from '../calibration/chat-schema.ts';
import { ChatTemplate } from '../calibration/chat-template.ts';
import { encodePrompt } from '../calibration/chat-tokens.ts';
import { ModelTokenizer } from '../calibration/tokenizer.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import { scoreReply } from './scoring.ts';
import type { DemoTask, TaskFamily } from './tasks.ts';

export interface DemoMetrics {
  /** Share of tool tasks answered with a valid call (parses, listed tool, schema-valid arguments). */
  readonly toolCallValidity: number;
  /** Share of all tasks answered correctly. */
  readonly accuracy: number;
  readonly accuracyByFamily: Readonly<Record<TaskFamily, number>>;
  readonly meanGeneratedTokens: number;
  readonly tasks: number;
}

export interface EvaluateOptions {
  /** Token budget per reply (a Thinking trace needs ~60). */
  readonly maxNewTokens?: number;
  readonly onProgress?: (done: number, total: number) => void;
  readonly signal?: AbortSignal;
}

export async function evaluateCheckpoint(dir: string, tasks: readonly DemoTask[], options: EvaluateOptions = {}): Promise<DemoMetrics> {
  const tokenizer = await ModelTokenizer.load(dir);
  const template = ChatTemplate.fromTokenizer(tokenizer);
  const endOfTurn = tokenizer.requireTokenId('<|im_end|>');
  const checkpoint = await Checkpoint.open(dir);
  try {
    const model = loadCausalLM(checkpoint);
    const results: { task: DemoTask; correct: boolean; valid: boolean | null; tokens: number }[] = [];
    for (const task of tasks) {
      const chat: Chat = task.tools === undefined ? { messages: [...task.prompt] } : { messages: [...task.prompt], tools: [...task.tools] };
      const { ids } = encodePrompt(chat, tokenizer, template);
      const { tokens } = await model.greedyDecode(ids, { maxNewTokens: options.maxNewTokens ?? 96, stopTokenIds: [endOfTurn], ...(options.signal === undefined ? {} : { signal: options.signal }) });
      const text = tokenizer.decode(tokens.filter((t) => t !== endOfTurn));
      const score = scoreReply(task, text);
      results.push({ task, correct: score.correct, valid: score.toolCallValid, tokens: tokens.length });
      options.onProgress?.(results.length, tasks.length);
    }
    return summarize(results);
  } finally {
    await checkpoint.close();
  }
}

function summarize(results: readonly { task: DemoTask; correct: boolean; valid: boolean | null; tokens: number }[]): DemoMetrics {
  const share = (items: readonly boolean[]) => (items.length === 0 ? Number.NaN : items.filter(Boolean).length / items.length);
  const families: TaskFamily[] = ['arithmetic', 'lookup', 'tool', 'chat'];
  return {
    toolCallValidity: share(results.flatMap((r) => (r.valid === null ? [] : [r.valid]))),
    accuracy: share(results.map((r) => r.correct)),
    accuracyByFamily: Object.fromEntries(families.map((f) => [f, share(results.filter((r) => r.task.family === f).map((r) => r.correct))])) as Record<TaskFamily, number>,
    meanGeneratedTokens: results.reduce((sum, r) => sum + r.tokens, 0) / Math.max(1, results.length),
    tasks: results.length,
  };
}
