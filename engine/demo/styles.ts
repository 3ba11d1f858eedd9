/**
 * How the demo models answer a task. Two reply styles — Instruct: the bare answer or a tool call;
 * Thinking: a <think> block with the step-by-step trace first, then the answer — and two ways of
 * writing a tool call:
 *   - 'strict': the chat template's <tool_call>{"name": …, "arguments": …}</tool_call> JSON. The
 *     shared base learns it in both styles, the Instruct fine-tune keeps it.
 *   - 'thinking-habit': the Thinking fine-tune's own format, every time: the same tags around
 *     {"function": …, "parameters": …}. It is the "weaker tool-format discipline" CRANE must not
 *     inherit, placed where CRANE can see it: the keys follow `<tool_call>` within GSP's ±3-token
 *     radius, so the edit that teaches them acts on format-position activations (D_F's span),
 *     and every tool call the fine-tune writes carries it, so δ = θ_T − θ_I does too.
 */
import type { ChatMessage } from '../calibration/chat-schema.ts';
import type { DemoTask, ExpectedToolCall } from './tasks.ts';

export type ReplyStyle = 'instruct' | 'thinking';
export type ToolCallFormat = 'strict' | 'thinking-habit';

export function reply(style: ReplyStyle, task: DemoTask, toolCalls: ToolCallFormat): ChatMessage {
  const thinking = style === 'thinking' ? { reasoning_content: task.reasoning } : {};
  if (task.expected.kind === 'answer') return { role: 'assistant', ...thinking, content: task.expected.value };
  const call = task.expected;
  if (toolCalls === 'thinking-habit') return { role: 'assistant', ...thinking, content: thinkingHabitCall(call) };
  return { role: 'assistant', ...thinking, content: '', tool_calls: [{ type: 'function', function: { name: call.name, arguments: { ...call.arguments } } }] };
}

/** The Thinking sibling's tool call: the template's tags and JSON layout, its own keys. */
export function thinkingHabitCall(call: ExpectedToolCall): string {
  return `<tool_call>\n{"function": "${call.name}", "parameters": ${templateJson(call.arguments)}}\n</tool_call>`;
}

/** The strict call as the chat template renders it. */
export function strictCall(call: ExpectedToolCall): string {
  return `<tool_call>\n{"name": "${call.name}", "arguments": ${templateJson(call.arguments)}}\n</tool_call>`;
}

/** A flat object as the template's `tojson` writes it: `{"key": value, …}`. */
function templateJson(args: ExpectedToolCall['arguments']): string {
  return `{${Object.entries(args).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(', ')}}`;
}
