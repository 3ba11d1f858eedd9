import { describe, expect, it } from 'vitest';
import type { Chat, Tool } from './chat-schema.ts';
import { encodePrompt, tokenizeChat, tokenizeChatPerTurn, type TokenizedChat } from './chat-tokens.ts';
import { loadNanbeigeStyleFixture } from './testing/nanbeige-fixture.ts';

// Chats through a Nanbeige4.2-style tokenizer (Metaspace "first", byte fallback, <|im_start|> as
// the post-processor's BOS) and template: no BOS is added, no ▁ is prepended to the pieces the
// mask is proved on, and tool calls render in either format.
const { tokenizer, template } = await loadNanbeigeStyleFixture();
const imStart = tokenizer.requireTokenId('<|im_start|>');

function targetRuns(t: TokenizedChat): string[] {
  const runs: number[][] = [];
  t.ids.forEach((id, i) => {
    if (t.lossMask[i] !== 1) return;
    if (i === 0 || t.lossMask[i - 1] !== 1) runs.push([]);
    runs.at(-1)?.push(id);
  });
  return runs.map((run) => tokenizer.decode(run));
}

const tool: Tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
const chat: Chat = {
  tools: [tool],
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, reasoning_content: 'Need a lookup.', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
    { role: 'tool', content: 'sunny' },
    { role: 'assistant', content: 'The weather is sunny.' },
  ],
};

describe('tokenizeChat with a Nanbeige-style tokenizer and template', () => {
  it('encodes the rendered chat without a BOS: one <|im_start|> per turn, the mask on the ids themselves', () => {
    const t = tokenizeChat(chat, tokenizer, template);
    expect(t.ids).toEqual(tokenizer.encode(t.text, { addSpecialTokens: false }));
    expect(t.ids[0]).toBe(imStart);
    expect(t.ids.filter((id) => id === imStart)).toHaveLength(5); // system, user, assistant, tool (as user), assistant
    // What the default (add_bos_token) encoding would give: everything one position later.
    expect(tokenizer.encode(t.text)).toEqual([imStart, ...t.ids]);
    expect(t.lossMask).toHaveLength(t.ids.length);
  });

  it('masks what the model generates after "<think>\\n", tool calls in XML (default) or JSON', () => {
    expect(targetRuns(tokenizeChat(chat, tokenizer, template))).toEqual([
      'Need a lookup.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call><|im_end|>',
      '\n</think>\n\nThe weather is sunny.<|im_end|>',
    ]);
    expect(targetRuns(tokenizeChat(chat, tokenizer, template, { toolCallFormat: 'json' }))).toEqual([
      'Need a lookup.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>',
      '\n</think>\n\nThe weather is sunny.<|im_end|>',
    ]);
  });

  it('leaves the empty think block of enable_thinking false in the prompt', () => {
    const plain: Chat = { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello there.' }] };
    expect(targetRuns(tokenizeChat(plain, tokenizer, template, { enableThinking: false }))).toEqual(['Hello there.<|im_end|>']);
    const question: Chat = { messages: plain.messages.slice(0, 1) };
    expect(encodePrompt(question, tokenizer, template, { enableThinking: false }).text).toBe(
      '<|im_start|>system\n你是一个乐于助人的助手。<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
    );
    expect(encodePrompt(question, tokenizer, template).ids.filter((id) => id === imStart)).toHaveLength(3); // system, user, assistant
  });

  it('with preserve_thinking false the template rewrites history: per-turn sequences score each turn as seen', () => {
    const twoTurns: Chat = {
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b', reasoning_content: 'r' },
        { role: 'user', content: 'c' },
        { role: 'assistant', content: 'd' },
      ],
    };
    expect(() => tokenizeChat(twoTurns, tokenizer, template, { preserveThinking: false })).toThrow(/is not a prefix of rendering the whole chat/);
    const turns = tokenizeChatPerTurn(twoTurns, tokenizer, template, { preserveThinking: false });
    expect(turns.map(targetRuns)).toEqual([['r\n</think>\n\nb<|im_end|>'], ['\n</think>\n\nd<|im_end|>']]);
    expect(turns[1]?.text).toContain('<|im_start|>assistant\n<think>\n\n</think>\n\nb<|im_end|>');
  });
});
