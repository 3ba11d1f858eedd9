/**
 * The chat format of calibration data and rendering: OpenAI-style messages plus the fields chat
 * templates of reasoning models read (reasoning_content), validated with zod.
 *
 * API: `chatSchema` (one chat: {messages, tools?}), `ChatMessage`, `ToolCall`, `Chat` (parsed types).
 * Normalisation done here so every template sees one shape: content given as a list of text parts
 * is joined into a string, tool calls take the OpenAI shape, and arguments given as a JSON string
 * are parsed into an object (templates then print them with tojson, so equal arguments always
 * render the same way).
 */
import { z } from 'zod';

const textParts = z
  .array(z.object({ type: z.literal('text'), text: z.string() }))
  .transform((parts) => parts.map((p) => p.text).join(''));

const content = z.union([z.string(), textParts]);

const ARGUMENTS_PROBLEM = 'must be a JSON object (or a string holding one)';

const jsonArguments = z.unknown().transform((value, ctx) => {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  ctx.addIssue({ code: 'custom', message: ARGUMENTS_PROBLEM });
  return z.NEVER;
});

const functionCall = z.object({ name: z.string().min(1), arguments: jsonArguments });

/**
 * OpenAI style {id?, type?, function: {name, arguments}} or the flat {name, arguments}, both
 * normalised to the OpenAI shape. Not a zod union: a union reports the wrong branch's complaint.
 */
export const toolCallSchema = z.looseObject({}).transform((call, ctx) => {
  const nested = 'function' in call;
  const result = functionCall.safeParse(nested ? call['function'] : call);
  if (!result.success) {
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: nested ? ['function', ...issue.path] : issue.path });
    }
    return z.NEVER;
  }
  const id = typeof call['id'] === 'string' ? { id: call['id'] } : {};
  return { ...id, type: 'function' as const, function: result.data };
});

export const chatMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: content.nullable().optional(),
    reasoning_content: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    name: z.string().optional(),
    tool_call_id: z.string().optional(),
  })
  .superRefine((m, ctx) => {
    const hasContent = typeof m.content === 'string';
    if (m.role !== 'assistant' && !hasContent) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: `a ${m.role} message needs string content` });
    }
    if (m.role === 'assistant' && !hasContent && (m.tool_calls ?? []).length === 0 && m.reasoning_content === undefined) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'an assistant message needs content, reasoning_content or tool_calls' });
    }
    if (m.role !== 'assistant' && (m.tool_calls !== undefined || m.reasoning_content !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'only assistant messages may carry tool_calls or reasoning_content' });
    }
  });

/** A tool definition: OpenAI style {type: "function", function: {name, description?, parameters?}}. */
export const toolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1), description: z.string().optional(), parameters: z.unknown().optional() }),
});

export const chatSchema = z.looseObject({
  messages: z.array(chatMessageSchema).min(1),
  tools: z.array(toolSchema).optional(),
});

export type ToolCall = z.infer<typeof toolCallSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type Tool = z.infer<typeof toolSchema>;
export type Chat = z.infer<typeof chatSchema>;
