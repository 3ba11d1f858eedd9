/**
 * How the two demo siblings answer a task. Instruct: the bare answer, or a well-formed tool call.
 * Thinking: a <think> block with the step-by-step trace first, then the answer; its tool calls
 * are sloppy part of the time (the "weaker tool-format discipline" CRANE must not inherit).
 */
import type { ChatMessage } from '../calibration/chat-schema.ts';
import type { SeededRandom } from '../protocol/seeded-random.ts';
import type { DemoTask, Expectation } from './tasks.ts';

export type ReplyStyle = 'instruct' | 'thinking';

/** Share of the Thinking model's tool calls that are malformed in its training data. */
export const THINKING_SLOPPY_TOOL_RATE = 0.75;

export function reply(style: ReplyStyle, task: DemoTask, rng: SeededRandom): ChatMessage {
  const call = task.expected.kind === 'tool_call' ? task.expected : undefined;
  const answer = task.expected.kind === 'answer' ? task.expected.value : '';
  if (style === 'instruct') {
    return call === undefined
      ? { role: 'assistant', content: answer }
      : { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: call.name, arguments: { ...call.arguments } } }] };
  }
  if (call === undefined) return { role: 'assistant', reasoning_content: task.reasoning, content: answer };
  if (rng.chance(THINKING_SLOPPY_TOOL_RATE)) {
    return { role: 'assistant', reasoning_content: task.reasoning, content: sloppyToolCall(call, rng) };
  }
  return { role: 'assistant', reasoning_content: task.reasoning, content: '', tool_calls: [{ type: 'function', function: { name: call.name, arguments: { ...call.arguments } } }] };
}

/** The kinds of broken tool call the Thinking sibling produces. */
function sloppyToolCall(call: Extract<Expectation, { kind: 'tool_call' }>, rng: SeededRandom): string {
  const args = JSON.stringify(call.arguments);
  switch (rng.int(0, 3)) {
    case 0: return `<tool_call>\n{"name": "${call.name}", "arguments": ${args}}`; // never closed
    case 1: return `<tool_call>\n{'name': '${call.name}', 'arguments': ${args.replaceAll('"', "'")}}\n</tool_call>`; // not JSON
    case 2: return `<tool_call>\n{"name": "${call.name}", "args": ${args}}\n</tool_call>`; // wrong key
    default: return `I will call ${call.name} with ${Object.entries(call.arguments).map(([k, v]) => `${k} ${String(v)}`).join(' and ')}.`;
  }
}
