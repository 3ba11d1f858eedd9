import { describe, expect, it } from 'vitest';
import { ChatTemplate, readBuiltinChatTemplate } from './chat-template.ts';
import { tokenizeChat } from './chat-tokens.ts';
import { formatPositions } from './format-positions.ts';
import { loadTestTokenizer } from './testing/fixture.ts';
import { tinyMetaspaceTokenizer } from './testing/tiny-metaspace.ts';
import { ModelTokenizer } from './tokenizer.ts';

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

// Nanbeige's <tool_response> is ordinary text: it is matched as the span of tokens that spell it,
// and those tokens differ with what precedes it (testing/tiny-metaspace.ts has the merges).
describe('formatPositions on a Metaspace tokenizer, where <tool_response> is several tokens', () => {
  const tiny = ModelTokenizer.fromContents(tinyMetaspaceTokenizer());
  const text = '<|im_start|>user\n<tool_response>\nx <tool_response>\n</tool_response><|im_end|>';
  const ids = tiny.encode(text, { addSpecialTokens: false });

  it('splits the pattern as worked out by hand: "<" after a newline, "▁<" after a space', () => {
    // 0 <|im_start|> 1 u 2 s 3 e 4 r 5 \n 6 < 7 tool 8 _response> 9 \n 10 x 11 ▁< 12 tool
    // 13 _response> 14 \n 15 </ 16 tool 17 _response> 18 <|im_end|>
    const pieces = ['<|im_start|>', 'u', 's', 'e', 'r', '<0x0A>', '<', 'tool', '_response>', '<0x0A>', 'x', '▁<', 'tool',
      '_response>', '<0x0A>', '</', 'tool', '_response>', '<|im_end|>'];
    expect(ids).toEqual(pieces.map((p) => tiny.requireTokenId(p)));
    expect(tiny.tokenId('<tool_response>')).toBeUndefined();
  });

  it('marks every token of each occurrence, ± radius (hand-computed)', () => {
    // "<tool_response>" at tokens 6–8 and 11–13 (starting one byte into "▁<"); never inside "</tool_response>".
    expect(formatPositions(ids, tiny, { patterns: ['<tool_response>'], radius: 0 })).toEqual([6, 7, 8, 11, 12, 13]);
    expect(formatPositions(ids, tiny, { patterns: ['</tool_response>'], radius: 0 })).toEqual([15, 16, 17]);
    expect(formatPositions(ids, tiny, { patterns: ['<tool_response>'], radius: 1 })).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    // The default six patterns: both added tokens plus all three spans.
    expect(formatPositions(ids, tiny, { radius: 0 })).toEqual([0, 6, 7, 8, 11, 12, 13, 15, 16, 17, 18]);
  });

  it('counts byte-fallback tokens as the one byte each stands for', () => {
    // "é" is <0xC3> <0xA9>: the pattern after it starts at token 3 (of 6), not shifted by U+FFFD stand-ins.
    const accented = tiny.encode('<|im_start|>é<tool_response>', { addSpecialTokens: false });
    expect(accented).toEqual(['<|im_start|>', '<0xC3>', '<0xA9>', '<', 'tool', '_response>'].map((p) => tiny.requireTokenId(p)));
    expect(formatPositions(accented, tiny, { patterns: ['<tool_response>'], radius: 0 })).toEqual([3, 4, 5]);
    expect(formatPositions(accented, tiny, { patterns: ['é<'], radius: 0 })).toEqual([1, 2, 3]);
  });
});
