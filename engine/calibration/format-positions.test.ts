import { describe, expect, it } from 'vitest';
import { ChatTemplate, readBuiltinChatTemplate } from './chat-template.ts';
import { tokenizeChat } from './chat-tokens.ts';
import { formatPositions } from './format-positions.ts';
import { loadTestTokenizer } from './testing/fixture.ts';

const tokenizer = await loadTestTokenizer();
const id = (content: string): number => tokenizer.requireTokenId(content);

describe('formatPositions', () => {
  // 20 tokens, all "x" except: 0 <|im_start|>, 6 <tool_call>, 10 "a", 11 "b", 19 <|im_end|>.
  const x = id('x');
  const ids = Array.from({ length: 20 }, () => x);
  ids[0] = id('<|im_start|>');
  ids[6] = id('<tool_call>');
  ids[10] = id('a');
  ids[11] = id('b');
  ids[19] = id('<|im_end|>');

  it('marks pattern tokens ±3, clipped at both ends (hand-computed)', () => {
    // <|im_start|> at 0 → 0..3; <tool_call> at 6 → 3..9; <|im_end|> at 19 → 16..19.
    expect(formatPositions(ids, tokenizer)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 18, 19]);
  });

  it('takes the radius and the pattern list as settings, including multi-token patterns', () => {
    expect(formatPositions(ids, tokenizer, { radius: 0 })).toEqual([0, 6, 19]);
    // "ab" spans tokens 10 and 11; radius 1 → 9..12. "xa" covers 9 and 10 → 8..11.
    expect(formatPositions(ids, tokenizer, { patterns: ['ab'], radius: 1 })).toEqual([9, 10, 11, 12]);
    expect(formatPositions(ids, tokenizer, { patterns: ['xa'], radius: 1 })).toEqual([8, 9, 10, 11]);
    expect(formatPositions(ids, tokenizer, { patterns: ['<nothing>'] })).toEqual([]);
    expect(() => formatPositions(ids, tokenizer, { radius: -1 })).toThrow(RangeError);
  });

  // Cut to the first 8 tokens (0..7): the reference finds positions on the whole sequence and
  // keeps those < 8. <tool_call> at 6 marks 3..9 → 3..7 kept; a pattern "ab" over 10–11 with
  // radius 3 marks 7..14 → 7 kept, though neither of its tokens is.
  it('finds positions on the whole sequence, then cuts them (hand-computed)', () => {
    expect(formatPositions(ids, tokenizer, { keptLength: 8 })).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(formatPositions(ids, tokenizer, { patterns: ['ab'], radius: 3, keptLength: 8 })).toEqual([7]);
    expect(formatPositions(ids.slice(0, 8), tokenizer, { patterns: ['ab'], radius: 3 })).toEqual([]); // cut first: lost
    // "xa" straddles a cut at 10 (tokens 9 and 10): its token 9 and the neighbourhood 6..9 stay.
    expect(formatPositions(ids, tokenizer, { patterns: ['xa'], radius: 3, keptLength: 10 })).toEqual([6, 7, 8, 9]);
    expect(formatPositions(ids.slice(0, 10), tokenizer, { patterns: ['xa'], radius: 3 })).toEqual([]);
  });

  it('finds every delimiter of a rendered tool-use chat', async () => {
    const template = new ChatTemplate(await readBuiltinChatTemplate(), 'chatml-tools.jinja');
    const { ids: chatIds } = tokenizeChat(
      {
        messages: [
          { role: 'user', content: 'Weather in Paris? Please answer with one short sentence only.' },
          { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
          { role: 'tool', content: 'sunny' },
        ],
      },
      tokenizer,
      template,
    );
    const positions = new Set(formatPositions(chatIds, tokenizer, { radius: 0 }));
    const delimiters = ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<|im_start|>', '<|im_end|>'].map(id);
    chatIds.forEach((t, i) => expect(positions.has(i)).toBe(delimiters.includes(t)));
    // With radius 3 the middle of the long user sentence stays out.
    const wide = formatPositions(chatIds, tokenizer);
    expect(wide.length).toBeLessThan(chatIds.length);
  });
});
