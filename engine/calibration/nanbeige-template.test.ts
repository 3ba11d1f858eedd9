import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Tool } from './chat-schema.ts';
import { ChatTemplate, NANBEIGE_STYLE_TEMPLATE_PATH } from './chat-template.ts';

// assets/templates/nanbeige-style.jinja: Nanbeige4.2's token-level format (architectures.md §6.6,
// §7.2), our own wording. Every expectation below is written out by hand.
const template = new ChatTemplate(await readFile(NANBEIGE_STYLE_TEMPLATE_PATH, 'utf8'), 'nanbeige-style.jinja');

const weather: Tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
const TOOLS_LIST =
  '# Tools\n\nThe functions you may call are described inside <tools></tools> tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}\n</tools>\n\n';
const XML_HOWTO =
  'Write each call in this XML form:\n<tool_call>\n<function=function_name>\n<parameter=parameter_name>\nvalue\n</parameter>\n</function>\n</tool_call><|im_end|>\n';
const JSON_HOWTO =
  'Write each call as a JSON object with the function name and arguments between <tool_call></tool_call> tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

const toolChat: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Paris and Rome?' },
  {
    role: 'assistant',
    content: 'Checking.',
    reasoning_content: '\nTwo calls.\n',
    tool_calls: [
      { type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } },
      { type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome', units: ['C'] } } },
    ],
  },
  { role: 'tool', content: 'sunny' },
  { role: 'tool', content: 'rain' },
  { role: 'assistant', content: 'Sunny, rainy.' },
];
const HEAD = '<|im_start|>system\nBe brief.\n\n' + TOOLS_LIST;
const AFTER_CALLS =
  '<|im_end|>\n<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response><|im_end|>\n' +
  '<|im_start|>assistant\n<think>\n\n</think>\n\nSunny, rainy.<|im_end|>\n';

describe('nanbeige-style.jinja', () => {
  it('renders XML tool calls by default: string values as they are, others as JSON, grouped tool responses', () => {
    expect(template.render(toolChat, { tools: [weather] })).toBe(
      HEAD + XML_HOWTO +
        '<|im_start|>user\nParis and Rome?<|im_end|>\n' +
        '<|im_start|>assistant\n<think>\nTwo calls.\n</think>\n\nChecking.\n\n' +
        '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>\n' +
        '<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n<parameter=units>\n["C"]\n</parameter>\n</function>\n</tool_call>' +
        AFTER_CALLS,
    );
    expect(template.render(toolChat, { tools: [weather], toolCallFormat: 'xml' })).toBe(template.render(toolChat, { tools: [weather] }));
  });

  it('renders JSON tool calls with tool_call_format "json"', () => {
    expect(template.render(toolChat, { tools: [weather], toolCallFormat: 'json' })).toBe(
      HEAD + JSON_HOWTO +
        '<|im_start|>user\nParis and Rome?<|im_end|>\n' +
        '<|im_start|>assistant\n<think>\nTwo calls.\n</think>\n\nChecking.\n' +
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>\n' +
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome", "units": ["C"]}}\n</tool_call>' +
        AFTER_CALLS,
    );
  });

  it('starts an XML call without a blank line when there is no content, and opens a default system turn', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
    ];
    expect(template.render(messages)).toBe(
      '<|im_start|>system\n你是一个乐于助人的助手。<|im_end|>\n<|im_start|>user\nParis?<|im_end|>\n' +
        '<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call><|im_end|>\n',
    );
  });

  it('keeps earlier reasoning unless preserve_thinking is false, which empties it before the last query', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: '<think>\nr1\n</think>\n\nA1' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'A2', reasoning_content: 'r2' },
    ];
    const turns = (first: string) =>
      '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\na<|im_end|>\n' +
      `<|im_start|>assistant\n<think>\n${first}\n</think>\n\nA1<|im_end|>\n` +
      '<|im_start|>user\nb<|im_end|>\n<|im_start|>assistant\n<think>\nr2\n</think>\n\nA2<|im_end|>\n';
    expect(template.render(messages)).toBe(turns('r1'));
    expect(template.render(messages, { preserveThinking: true })).toBe(turns('r1'));
    expect(template.render(messages, { preserveThinking: false })).toBe(turns(''));
  });

  it('counts a user turn that only wraps a tool response as no query', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'A1', reasoning_content: 'r1' },
      { role: 'user', content: '<tool_response>\nx\n</tool_response>' },
      { role: 'assistant', content: 'A2', reasoning_content: 'r2' },
    ];
    // The last query is message 1, so neither assistant turn comes before it: both keep reasoning.
    expect(template.render(messages, { preserveThinking: false })).toContain('<think>\nr1\n</think>');
  });

  it('opens the assistant turn in think mode unless enable_thinking is false', () => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'S' }, { role: 'user', content: 'Hi' }];
    const head = '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n';
    expect(template.render(messages, { addGenerationPrompt: true })).toBe(`${head}<think>\n`);
    expect(template.render(messages, { addGenerationPrompt: true, enableThinking: true })).toBe(`${head}<think>\n`);
    expect(template.render(messages, { addGenerationPrompt: true, enableThinking: false })).toBe(`${head}<think>\n\n</think>\n\n`);
  });

  it('refuses a system message after the first', () => {
    expect(() => template.render([{ role: 'user', content: 'a' }, { role: 'system', content: 'b' }])).toThrow(/a system message must come first/);
  });
});
