import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { writeTokenizerFiles } from './build-tokenizer.ts';
import { ChatTemplate, NANBEIGE_STYLE_TEMPLATE_PATH } from './chat-template.ts';
import { buildNanbeigeStyleTokenizer, NANBEIGE_STYLE_ADDED_TOKENS } from './nanbeige-style-tokenizer.ts';
import { TEST_CORPUS } from './testing/fixture.ts';
import { ModelTokenizer } from './tokenizer.ts';

const options = { corpus: TEST_CORPUS.repeat(3), chatTemplate: 'T', vocabSize: 500 };
const built = buildNanbeigeStyleTokenizer(options);
const tokenizer = ModelTokenizer.fromContents(built);
const json = built.tokenizerJson as {
  model: { vocab: Record<string, number>; merges: [string, string][]; byte_fallback: boolean };
  added_tokens: { id: number; content: string; special: boolean; normalized: boolean }[];
  pre_tokenizer: unknown;
};
const id = (content: string): number => tokenizer.requireTokenId(content);

describe('buildNanbeigeStyleTokenizer', () => {
  it('is deterministic', () => {
    expect(JSON.stringify(buildNanbeigeStyleTokenizer(options))).toBe(JSON.stringify(built));
  });

  it("lays the vocabulary out as Nanbeige's: <unk> <s> </s>, 256 byte tokens, pieces, then the added tokens", () => {
    const { vocab } = json.model;
    expect([vocab['<unk>'], vocab['<s>'], vocab['</s>'], vocab['<0x00>'], vocab['<0x0A>'], vocab['<0xFF>']]).toEqual([0, 1, 2, 3, 13, 258]);
    expect(vocab['\n']).toBeUndefined(); // newlines are always byte fallback, as in Llama's vocabulary
    expect(vocab['▁weather']).toBeGreaterThan(258);
    const size = Object.keys(vocab).length;
    expect(size).toBeLessThanOrEqual(500);
    expect(json.added_tokens.map((t) => [t.id, t.content, t.special, t.normalized])).toEqual([
      [0, '<unk>', true, true], [1, '<s>', true, true], [2, '</s>', true, true],
      ...NANBEIGE_STYLE_ADDED_TOKENS.map((t, i) => [size + i, t.content, t.special, t.normalized]),
    ]);
    expect(tokenizer.tokenId('<tool_response>')).toBeUndefined();
    expect(json.pre_tokenizer).toEqual({ type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false });
    expect(built.tokenizerConfig).toMatchObject({ add_bos_token: true, bos_token: '<|im_start|>', eos_token: '<|im_end|>', pad_token: '<unk>', tokenizer_class: 'LlamaTokenizer' });
  });

  it('refuses a vocabulary too small for the control, byte and character tokens', () => {
    expect(() => buildNanbeigeStyleTokenizer({ ...options, vocabSize: 280 })).toThrow(/vocabSize 280 is below the \d+ control, byte and character tokens/);
  });
});

describe('a Nanbeige-style tokenizer in ModelTokenizer', () => {
  const samples = [
    'The weather in Paris is sunny.',
    '<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n<think>\nadd\n</think>\n\n42<|im_end|>',
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nZürich\n</parameter>\n</function>\n</tool_call>',
    '<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>',
    'tabs\tand  spaces \n\n\n émoji 🎉 漢字 end',
  ];

  it('round-trips text exactly; token bytes rebuild it, with the ▁ prepended at offset 0 as a space', () => {
    for (const text of samples) {
      const ids = tokenizer.encode(text, { addSpecialTokens: false });
      expect(tokenizer.decode(ids)).toBe(text);
      const bytes = Buffer.concat(ids.map((t) => tokenizer.tokenBytes(t))).toString('utf8');
      expect(bytes).toBe(text.startsWith('<') ? text : ` ${text}`);
    }
  });

  it('spells characters outside the vocabulary with byte-fallback tokens', () => {
    expect(tokenizer.encode('<|im_start|>漢', { addSpecialTokens: false })).toEqual([id('<|im_start|>'), id('<0xE6>'), id('<0xBC>'), id('<0xA2>')]);
  });

  it('prepends <|im_start|> as BOS only when special tokens are added: a chat keeps exactly its own', () => {
    const chat = '<|im_start|>user\nhi<|im_end|>\n';
    const plain = tokenizer.encode(chat, { addSpecialTokens: false });
    expect(tokenizer.addsSpecialTokensByDefault).toBe(true);
    expect(tokenizer.encode(chat)).toEqual([id('<|im_start|>'), ...plain]); // the double BOS chats must avoid
    expect(plain.filter((t) => t === id('<|im_start|>'))).toHaveLength(1);
  });

  it('prepends ▁ only at the start of the input ("first"); a continuation gets none', () => {
    const alone = tokenizer.encode('weather', { addSpecialTokens: false });
    expect(alone[0]).toBe(id('▁weather'));
    expect(tokenizer.decode(tokenizer.encode('weather', { addSpecialTokens: false, continuation: true }))).toBe('weather');
    expect(tokenizer.encode('weather', { addSpecialTokens: false, continuation: true })).not.toContain(id('▁weather'));
    // After an added token nothing is prepended either, so chat text after <|im_start|> has no ▁.
    expect(tokenizer.encode('<|im_start|>weather', { addSpecialTokens: false }).slice(1))
      .toEqual(tokenizer.encode('weather', { addSpecialTokens: false, continuation: true }));
  });
});

describe('a Nanbeige-style tokenizer on disk', () => {
  it('loads from the written files with its chat template, as a demo checkpoint would', () => withTempDir(async (dir) => {
    const template = await readFile(NANBEIGE_STYLE_TEMPLATE_PATH, 'utf8');
    await writeTokenizerFiles(dir, buildNanbeigeStyleTokenizer({ ...options, chatTemplate: template }));
    const loaded = await ModelTokenizer.load(dir);
    expect(loaded.encode('The weather', { addSpecialTokens: false })).toEqual(tokenizer.encode('The weather', { addSpecialTokens: false }));
    expect(loaded.configToken('bos_token')).toBe('<|im_start|>');
    const rendered = ChatTemplate.fromTokenizer(loaded).render([{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true, enableThinking: false });
    expect(rendered.endsWith('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
  }));
});
