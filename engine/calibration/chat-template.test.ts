import { describe, expect, it } from 'vitest';
import { CalibrationError } from './calibration-error.ts';
import type { ChatMessage, Tool } from './chat-schema.ts';
import { ChatTemplate, readBuiltinChatTemplate } from './chat-template.ts';
import { ModelTokenizer } from './tokenizer.ts';
import { testTokenizer } from './testing/fixture.ts';

const template = new ChatTemplate(await readBuiltinChatTemplate(), 'chatml-tools.jinja');

const weatherTool: Tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

// The tools preamble, written out by hand once: every tools case below starts with it.
const TOOLS_PREAMBLE =
  '# Tools\n\nYou can call the functions described below. Their signatures are listed inside <tools></tools> tags:\n<tools>\n' +
  '{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n' +
  '</tools>\n\nTo call a function, reply with a JSON object holding its name and arguments between <tool_call></tool_call> tags:\n' +
  '<tool_call>\n{"name": <function-name>, "arguments": <arguments-json-object>}\n</tool_call><|im_end|>\n';

describe('chatml-tools.jinja', () => {
  it('renders system, user and assistant turns', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ];
    expect(template.render(messages)).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n',
    );
  });

  it('renders tools, reasoning, a tool call, grouped tool responses and a final answer', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are a helper.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        reasoning_content: '\nTwo cities, two calls.\n',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
          { type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } } },
        ],
      },
      { role: 'tool', content: 'sunny', tool_call_id: 'a' },
      { role: 'tool', content: 'rain' },
      { role: 'assistant', content: 'Paris is sunny, Rome rainy.' },
    ];
    const expected =
      '<|im_start|>system\nYou are a helper.\n\n' +
      TOOLS_PREAMBLE +
      '<|im_start|>user\nWeather in Paris and Rome?<|im_end|>\n' +
      '<|im_start|>assistant\n<think>\nTwo cities, two calls.\n</think>\n\nChecking.\n' +
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response><|im_end|>\n' +
      '<|im_start|>assistant\nParis is sunny, Rome rainy.<|im_end|>\n';
    expect(template.render(messages, { tools: [weatherTool] })).toBe(expected);
  });

  it('opens a system turn for tools when the chat has no system message; a bare call has no leading newline', () => {
    // Chats from elsewhere may use the flat call shape and string arguments: written verbatim.
    const flatCall = { name: 'get_weather', arguments: '{"city":"Paris"}' };
    const messages = [
      { role: 'user', content: 'Paris?' },
      { role: 'assistant', content: null, tool_calls: [flatCall] },
    ] as unknown as ChatMessage[];
    expect(template.render(messages, { tools: [weatherTool] })).toBe(
      '<|im_start|>system\n' +
        TOOLS_PREAMBLE +
        '<|im_start|>user\nParis?<|im_end|>\n' +
        '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call><|im_end|>\n',
    );
  });

  it('splits a <think> block out of content', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '2+2?' },
      { role: 'assistant', content: '<think>\nadd them\n</think>\n\n4' },
    ];
    expect(template.render(messages)).toBe(
      '<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n<think>\nadd them\n</think>\n\n4<|im_end|>\n',
    );
  });

  it('renders an empty reasoning string as an empty think block', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello', reasoning_content: '' },
    ];
    expect(template.render(messages)).toBe(
      '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>\n',
    );
  });

  it('adds the generation prompt according to enable_thinking', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Hi' }];
    const head = '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n';
    expect(template.render(messages, { addGenerationPrompt: true })).toBe(head);
    expect(template.render(messages, { addGenerationPrompt: true, enableThinking: true })).toBe(`${head}<think>\n`);
    expect(template.render(messages, { addGenerationPrompt: true, enableThinking: false })).toBe(`${head}<think>\n\n</think>\n\n`);
    expect(template.render(messages, { enableThinking: true })).toBe('<|im_start|>user\nHi<|im_end|>\n');
  });

  it('passes each template option only when set, under the name templates read', () => {
    const probe = new ChatTemplate(
      '{% for v in [enable_thinking, preserve_thinking, tool_call_format] %}{{ v if v is defined else "-" }}|{% endfor %}',
      'probe.jinja',
    );
    const user: ChatMessage[] = [{ role: 'user', content: 'x' }];
    expect(probe.render(user)).toBe('-|-|-|');
    expect(probe.render(user, { enableThinking: false, preserveThinking: true, toolCallFormat: 'json' })).toBe('false|true|json|');
    expect(probe.render(user, { toolCallFormat: 'xml', enableThinking: undefined })).toBe('-|-|xml|');
  });

  it('renders a later system message and a tool turn at the very end', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'system', content: 'b' },
      { role: 'tool', content: 'c' },
    ];
    expect(template.render(messages)).toBe(
      '<|im_start|>user\na<|im_end|>\n<|im_start|>system\nb<|im_end|>\n<|im_start|>user\n<tool_response>\nc\n</tool_response><|im_end|>\n',
    );
  });
});

const { tokenizerJson, tokenizerConfig } = await testTokenizer();

describe('ChatTemplate.fromTokenizer', () => {
  const withTemplate = (chat_template: unknown, chatTemplateFile?: string) =>
    ModelTokenizer.fromContents({ tokenizerJson, tokenizerConfig: { ...tokenizerConfig, chat_template }, ...(chatTemplateFile === undefined ? {} : { chatTemplateFile }) });

  it('uses the config template and exposes the special tokens', () => {
    const t = ChatTemplate.fromTokenizer(withTemplate('{{ eos_token }}|{{ messages[0].content }}'));
    expect(t.render([{ role: 'user', content: 'x' }])).toBe('<|im_end|>|x');
  });

  it('picks named templates: default, tool_use for tools, or by name', () => {
    const tok = withTemplate([
      { name: 'default', template: 'D' },
      { name: 'tool_use', template: 'T' },
    ]);
    expect(ChatTemplate.fromTokenizer(tok).render([{ role: 'user', content: 'x' }])).toBe('D');
    expect(ChatTemplate.fromTokenizer(tok, { forTools: true }).source).toBe('T');
    expect(() => ChatTemplate.fromTokenizer(tok, { name: 'rag' })).toThrow(/no template named "rag" \(has: default, tool_use\)/);
  });

  it('prefers chat_template.jinja over the config', () => {
    expect(ChatTemplate.fromTokenizer(withTemplate('config', 'file')).source).toBe('file');
  });

  it('fails clearly without a template, on a syntax error, and on raise_exception', () => {
    expect(() => ChatTemplate.fromTokenizer(withTemplate(undefined))).toThrow(/tokenizer_config.json chat_template: is missing/);
    expect(() => new ChatTemplate('{% if %}', 'bad.jinja')).toThrow(/bad.jinja: does not parse/);
    const raising = new ChatTemplate("{{ raise_exception('no system role') }}", 'strict.jinja');
    expect(() => raising.render([{ role: 'user', content: 'x' }])).toThrow(CalibrationError);
    expect(() => raising.render([{ role: 'user', content: 'x' }])).toThrow(/strict.jinja: failed to render \(.*no system role/);
  });
});
