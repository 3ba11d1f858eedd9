/**
 * The demo's held-out evaluation set on disk (assets/demo/data/eval.jsonl): one task a line —
 * the prompt chat, its family, the expected answer or tool call, and the reference reasoning.
 *
 * verifyChats(tasks) → the same prompts as Verify's evaluation files (eval-reasoning.jsonl,
 * eval-tool-use.jsonl): arithmetic and lookup as D_R, tool requests (with their tools) as D_A,
 * prompts only — their targets are decoded as the calibration sets' are. Plain chat is neither.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { chatSchema, type Chat } from '../calibration/chat-schema.ts';
import type { DemoTask } from './tasks.ts';

const expectationSchema = z.union([
  z.object({ kind: z.literal('answer'), value: z.string() }),
  z.object({ kind: z.literal('tool_call'), name: z.string(), arguments: z.record(z.string(), z.union([z.string(), z.number()])) }),
]);

const evalLineSchema = chatSchema.and(
  z.object({ family: z.enum(['arithmetic', 'lookup', 'tool', 'chat']), expected: expectationSchema, reasoning: z.string() }),
);

export function evalSetLine(task: DemoTask): string {
  return JSON.stringify({ family: task.family, messages: task.prompt, ...(task.tools === undefined ? {} : { tools: task.tools }), expected: task.expected, reasoning: task.reasoning });
}

export function verifyChats(tasks: readonly DemoTask[]): { reasoning: Chat[]; toolUse: Chat[] } {
  const chat = (task: DemoTask): Chat => (task.tools === undefined ? { messages: [...task.prompt] } : { messages: [...task.prompt], tools: [...task.tools] });
  return {
    reasoning: tasks.filter((t) => t.family === 'arithmetic' || t.family === 'lookup').map(chat),
    toolUse: tasks.filter((t) => t.family === 'tool').map(chat),
  };
}

export async function readEvalSet(path: string): Promise<DemoTask[]> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  return lines.flatMap((line, i) => {
    if (line.trim() === '') return [];
    const parsed = evalLineSchema.safeParse(safeJson(line));
    if (!parsed.success) throw new CalibrationError('dataset', `${path}:${i + 1}`, parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    const { family, messages, tools, expected, reasoning } = parsed.data;
    return [{ family, prompt: messages, ...(tools === undefined ? {} : { tools }), expected, reasoning }];
  });
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
