import { describe, expect, it } from 'vitest';
import type { Chat, Tool } from './chat-schema.ts';
import { ChatTemplate, readBuiltinChatTemplate } from './chat-template.ts';
import { contextLimitOf, type LongSequencePolicy } from './context-length.ts';
import { encodeChat, encodePrompt, tokenizeChat, tokenizeChatPerTurn, type TokenizedChat } from './chat-tokens.ts';
import { loadTestTokenizer } from './testing/fixture.ts';

const tokenizer = await loadTestTokenizer();
const template = new ChatTemplate(await readBuiltinChatTemplate(), 'chatml-tools.jinja');
const imEnd = tokenizer.requireTokenId('<|im_end|>');

/** The decoded text of each maximal run of masked tokens: what the loss covers, readably. */
function targetRuns(t: TokenizedChat): string[] {
  const runs: string[] = [];
  let run: number[] = [];
  t.ids.forEach((id, i) => {
    if (t.lossMask[i] === 1) run.push(id);
    else if (run.length > 0) {
      runs.push(tokenizer.decode(run));
      run = [];
    }
  });
  if (run.length > 0) runs.push(tokenizer.decode(run));
  return runs;
}

const tool: Tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };

describe('tokenizeChat', () => {
  it('masks exactly the assistant content and its <|im_end|> (hand-checked at id level)', () => {
    const t = tokenizeChat({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }] }, tokenizer, template);
    expect(t.text).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n');
    expect(t.ids).toEqual(tokenizer.encode(t.text));
    const ok = tokenizer.encode('ok');
    const n = t.ids.length;
    // …assistant \n | o k <|im_end|> | \n
    const expectedMask = t.ids.map((_, i) => (i >= n - 2 - ok.length && i <= n - 2 ? 1 : 0));
    expect([...t.lossMask]).toEqual(expectedMask);
    expect(t.ids.slice(n - 2 - ok.length, n - 1)).toEqual([...ok, imEnd]);
    expect(tokenizer.decode(t.ids.slice(0, n - 2 - ok.length))).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
  });

  it('covers reasoning, content and tool calls of every assistant turn, nothing of prompts or tool output', () => {
    const chat: Chat = {
      tools: [tool],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Need a lookup.',
          tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
        },
        { role: 'tool', content: 'sunny' },
        { role: 'assistant', content: 'Sunny.' },
        { role: 'user', content: 'Thanks' },
        { role: 'assistant', content: 'You are welcome.' },
      ],
    };
    const t = tokenizeChat(chat, tokenizer, template);
    expect(targetRuns(t)).toEqual([
      '<think>\nNeed a lookup.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>',
      'Sunny.<|im_end|>',
      'You are welcome.<|im_end|>',
    ]);
    expect(t.targetSpans.map((s) => s.message)).toEqual([2, 4, 6]);
    expect(t.targetSpans.map((s) => t.text.slice(s.start, s.end))).toEqual(targetRuns(t));
  });

  it('leaves the part the generation prompt already wrote out of the targets', () => {
    const chat: Chat = { messages: [{ role: 'user', content: '2+2?' }, { role: 'assistant', content: '4', reasoning_content: 'add' }] };
    // enable_thinking=true: the prompt ends with "<think>\n", the model generates from there.
    expect(targetRuns(tokenizeChat(chat, tokenizer, template, { enableThinking: true }))).toEqual(['add\n</think>\n\n4<|im_end|>']);
    expect(targetRuns(tokenizeChat(chat, tokenizer, template))).toEqual(['<think>\nadd\n</think>\n\n4<|im_end|>']);
    // enable_thinking=false: an empty think block is part of the prompt.
    const empty: Chat = { messages: [{ role: 'user', content: '2+2?' }, { role: 'assistant', content: '4', reasoning_content: '' }] };
    expect(targetRuns(tokenizeChat(empty, tokenizer, template, { enableThinking: false }))).toEqual(['4<|im_end|>']);
  });

  it('truncates to maxTokens', () => {
    const chat: Chat = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'a long answer here' }] };
    const full = tokenizeChat(chat, tokenizer, template);
    const cut = tokenizeChat(chat, tokenizer, template, { maxTokens: full.ids.length - 3 });
    expect(cut.truncated).toBe(true);
    expect(cut.ids).toEqual(full.ids.slice(0, -3));
    expect([...cut.lossMask]).toEqual([...full.lossMask.slice(0, -3)]);
  });

  it('applies the context policy to sequences longer than max_position_embeddings, naming file and line', () => {
    const chat: Chat = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'a long answer here' }] };
    const full = tokenizeChat(chat, tokenizer, template);
    const warnings: string[] = [];
    const context = (policy: LongSequencePolicy, maxPositions: number) => contextLimitOf({ max_position_embeddings: maxPositions }, 'm/config.json', policy, (w) => warnings.push(w));
    const n = full.ids.length;
    const cut = tokenizeChat(chat, tokenizer, template, { label: 'd.jsonl:7', context: context('cut', n - 4) });
    expect(cut.ids).toEqual(full.ids.slice(0, -4));
    expect([...cut.lossMask]).toEqual([...full.lossMask.slice(0, -4)]);
    expect(cut.truncated).toBe(true);
    const kept = tokenizeChat(chat, tokenizer, template, { label: 'd.jsonl:7', context: context('warn', n - 4) });
    expect(kept.ids).toEqual(full.ids);
    expect(warnings).toEqual([
      `d.jsonl:7: has ${n} tokens, more than the model's context (max_position_embeddings ${n - 4} in m/config.json): cut to its first ${n - 4} tokens`,
      `d.jsonl:7: has ${n} tokens, more than the model's context (max_position_embeddings ${n - 4} in m/config.json): kept whole, positions past the context are untrained`,
    ]);
    expect(() => tokenizeChat(chat, tokenizer, template, { label: 'd.jsonl:7', context: context('refuse', n - 1) }))
      .toThrow(`d.jsonl:7: has ${n} tokens, more than the model's context (max_position_embeddings ${n - 1} in m/config.json); shorten it`);
    // Fitting sequences, and sequences the caller already cut to fit, pass without a word.
    expect(tokenizeChat(chat, tokenizer, template, { context: context('refuse', n) }).ids).toEqual(full.ids);
    expect(tokenizeChat(chat, tokenizer, template, { maxTokens: 5, context: context('refuse', 5) }).ids).toEqual(full.ids.slice(0, 5));
    expect(warnings).toHaveLength(2);
  });

  // Like Qwen3's own templates: reasoning is shown only on the last turn.
  const lastOnly = new ChatTemplate(
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{% if m.reasoning_content and loop.last %}<think>{{ m.reasoning_content }}</think>{% endif %}{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    'last-only.jinja',
  );
  const rewritten: Chat = {
    messages: [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b', reasoning_content: 'r' },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: 'd' },
    ],
  };

  it('rejects templates that rewrite earlier turns', () => {
    expect(() => tokenizeChat(rewritten, tokenizer, lastOnly, { label: 'x.jsonl:3' })).toThrow(
      /x.jsonl:3: last-only.jinja: rendering messages\[0..1\] is not a prefix/,
    );
  });

  it('scores such chats turn by turn, each in the context the model saw', () => {
    const turns = tokenizeChatPerTurn(rewritten, tokenizer, lastOnly);
    expect(turns.map((t) => t.text)).toEqual([
      '<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n<think>r</think>b<|im_end|>\n',
      '<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\nb<|im_end|>\n<|im_start|>user\nc<|im_end|>\n<|im_start|>assistant\nd<|im_end|>\n',
    ]);
    expect(turns.map(targetRuns)).toEqual([['<think>r</think>b<|im_end|>'], ['d<|im_end|>']]);
  });

  it('rejects a mask that would cut through a token', () => {
    // No header between turns: " wea" + "ther" tokenizes as the single token " weather".
    const glued = new ChatTemplate("{% for m in messages %}{{ m.content }}{% if m.role == 'assistant' %}<|im_end|>{% endif %}{% endfor %}", 'glued.jinja');
    const chat: Chat = { messages: [{ role: 'user', content: 'The wea' }, { role: 'assistant', content: 'ther' }] };
    expect(() => tokenizeChat(chat, tokenizer, glued, { label: 'y.jsonl:1' })).toThrow(/y.jsonl:1: a token crosses the boundary/);
  });
});

describe('encodePrompt', () => {
  it('renders the generation prompt without adding special tokens', () => {
    const p = encodePrompt({ messages: [{ role: 'user', content: 'hi' }] }, tokenizer, template, { enableThinking: true });
    expect(p.text).toBe('<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n');
    expect(tokenizer.decode(p.ids)).toBe(p.text);
    expect(p.ids[0]).toBe(tokenizer.requireTokenId('<|im_start|>'));
  });
});

describe('encodeChat', () => {
  it('gives the same ids as tokenizeChat, truncated on request', () => {
    const chat: Chat = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }] };
    const masked = tokenizeChat(chat, tokenizer, template);
    expect(encodeChat(chat, tokenizer, template)).toEqual({ text: masked.text, ids: masked.ids, truncated: false, wholeIds: masked.ids });
    expect(encodeChat(chat, tokenizer, template, { maxTokens: 2 })).toMatchObject({ ids: masked.ids.slice(0, 2), truncated: true, wholeIds: masked.ids });
    const refuse = contextLimitOf({ max_position_embeddings: 3 }, 'config.json', 'refuse', () => undefined);
    expect(() => encodeChat(chat, tokenizer, template, { label: 'f.jsonl:2', context: refuse })).toThrow(/^f\.jsonl:2: has \d+ tokens, more than the model's context/);
  });
});
