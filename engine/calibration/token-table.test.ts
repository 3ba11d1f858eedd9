import { describe, expect, it } from 'vitest';
import { QWEN3_TOKENIZER_DIR } from '../io/testing/qwen3-tokenizer.ts';
import { buildNanbeigeStyleTokenizer } from './nanbeige-style-tokenizer.ts';
import { testTokenizer } from './testing/fixture.ts';
import { tinyMetaspaceTokenizer } from './testing/tiny-metaspace.ts';
import { addedTokensOf, tokenIdOf } from './token-table.ts';
import { FORMAT_TOKENS, ModelTokenizer } from './tokenizer.ts';
import { readTokenizerSource, type JsonObject } from './tokenizer-source.ts';

/** The library's answers: what the built tokenizer says for the same file. */
function libraryAnswers(tokenizerJson: JsonObject, contents: readonly string[]) {
  const tokenizer = ModelTokenizer.fromContents({ tokenizerJson });
  return { added: tokenizer.addedTokens, ids: contents.map((c) => tokenizer.tokenId(c)) };
}

const asked = [...Object.values(FORMAT_TOKENS), 'hello', 'Ġthe', '▁<', 'not a token at all'];

describe('ids from tokenizer.json without building the tokenizer', () => {
  it.each([
    ['Qwen3 (151,669 ids)', async () => (await readTokenizerSource(QWEN3_TOKENIZER_DIR)).tokenizerJson],
    ['the test BPE', async () => (await testTokenizer()).tokenizerJson as JsonObject],
    ['a Nanbeige-style Metaspace', () => Promise.resolve(buildNanbeigeStyleTokenizer({ corpus: 'hello world <tool_call>', chatTemplate: '' }).tokenizerJson)],
    ['a hand-written Metaspace', () => Promise.resolve(tinyMetaspaceTokenizer().tokenizerJson)],
  ])('gives the library\'s added tokens and ids for %s', async (_name, json) => {
    const tokenizerJson = await json();
    const library = libraryAnswers(tokenizerJson, asked);
    expect(addedTokensOf(tokenizerJson)).toEqual(library.added);
    expect(asked.map((c) => tokenIdOf(tokenizerJson, c))).toEqual(library.ids);
  });

  it('lets an added token override the vocabulary, the last duplicate win, and numbers a Unigram list by position', () => {
    const bpe: JsonObject = {
      model: { type: 'BPE', vocab: { a: 0, b: 1, '<x>': 2 }, merges: [] },
      added_tokens: [
        { id: 5, content: '<x>', special: true },
        { id: 3, content: '<y>', special: false },
        { id: 3, content: '<z>', special: true },
      ],
    };
    expect(tokenIdOf(bpe, '<x>')).toBe(5);
    expect(tokenIdOf(bpe, 'b')).toBe(1);
    expect(tokenIdOf(bpe, 'toString')).toBeUndefined();
    expect(addedTokensOf(bpe)).toEqual([{ id: 3, content: '<z>', special: true }, { id: 5, content: '<x>', special: true }]);
    const unigram: JsonObject = { model: { type: 'Unigram', vocab: [['<unk>', 0], ['▁a', -1], ['b', -2]] } };
    expect(tokenIdOf(unigram, 'b')).toBe(2);
    expect(tokenIdOf(unigram, 'c')).toBeUndefined();
  });
});
