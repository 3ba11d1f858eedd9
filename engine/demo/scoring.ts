/**
 * Automatic scoring of a generated assistant turn against a demo task: tool-call validity (the
 * JSON parses, names a listed tool, and its arguments match that tool's schema), task accuracy,
 * and length.
 */
import type { DemoTask } from './tasks.ts';
import { DEMO_TOOLS } from './tools.ts';

export interface ParsedToolCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

const TOOL_CALL = /^<tool_call>\n([\s\S]*?)\n<\/tool_call>$/;

/** The tool call of a reply, or why there is none. The reply may start with a think block. */
export function parseToolCall(text: string): ParsedToolCall | { error: string } {
  const body = finalText(text);
  const match = TOOL_CALL.exec(body);
  if (match === null) return { error: 'no <tool_call>…</tool_call> block' };
  let json: unknown;
  try {
    json = JSON.parse(match[1] as string);
  } catch {
    return { error: 'tool call is not JSON' };
  }
  const { name, arguments: args } = (json ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return { error: 'tool call has no name' };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: 'tool call has no arguments object' };
  return { name, arguments: args as Record<string, unknown> };
}

/** The reply after any <think>…</think> block, trimmed. */
export function finalText(text: string): string {
  const end = text.lastIndexOf('</think>');
  return (end >= 0 ? text.slice(end + '</think>'.length) : text).trim();
}

/** Whether arguments match the tool's schema: every parameter present with its type, nothing extra. */
export function argumentsMatchSchema(name: string, args: Record<string, unknown>): boolean {
  const def = DEMO_TOOLS.find((t) => t.name === name);
  if (def === undefined) return false;
  const keys = Object.keys(args);
  if (keys.length !== Object.keys(def.params).length) return false;
  return keys.every((k) => {
    const type = def.params[k];
    const value = args[k];
    return type === 'string' ? typeof value === 'string' : Number.isInteger(value);
  });
}

export interface TaskScore {
  /** For tool tasks: a parseable call of a listed tool with schema-valid arguments. */
  readonly toolCallValid: boolean | null;
  readonly correct: boolean;
}

export function scoreReply(task: DemoTask, text: string): TaskScore {
  if (task.expected.kind === 'answer') return { toolCallValid: null, correct: finalText(text) === task.expected.value };
  const call = parseToolCall(text);
  const listed = (task.tools ?? []).some((t) => 'name' in call && t.function.name === call.name);
  const valid = 'name' in call && listed && argumentsMatchSchema(call.name, call.arguments);
  const expected = task.expected;
  const correct = valid && call.name === expected.name &&
    Object.entries(expected.arguments).every(([k, v]) => call.arguments[k] === v);
  return { toolCallValid: valid, correct };
}
