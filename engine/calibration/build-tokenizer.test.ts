import { describe, expect, it } from 'vitest';
import { BYTE_LEVEL_ALPHABET } from './byte-level.ts';
import { buildTokenizer, QWEN_STYLE_ADDED_TOKENS } from './build-tokenizer.ts';
import { TEST_CORPUS } from './testing/fixture.ts';
import { ModelTokenizer } from './tokenizer.ts';

describe('buildTokenizer', () => {
  const options = { corpus: TEST_CORPUS.repeat(3), chatTemplate: 'T', vocabSize: 400 };
  const built = buildTokenizer(options);
  const model = built.tokenizerJson['model'] as { vocab: Record<string, number>; merges: [string, string][] };

  it('is deterministic', () => {
    expect(JSON.stringify(buildTokenizer(options))).toBe(JSON.stringify(built));
  });

  it('has the 256 byte symbols first, then merges, then the added tokens', () => {
    const base = Object.keys(model.vocab).length;
    expect(base).toBeGreaterThan(300);
    expect(base).toBeLessThanOrEqual(400);
    BYTE_LEVEL_ALPHABET.forEach((ch, i) => expect(model.vocab[ch]).toBe(i));
    const added = built.tokenizerJson['added_tokens'] as { id: number; content: string; special: boolean }[];
    expect(added.map((t) => [t.id, t.content, t.special])).toEqual(
      QWEN_STYLE_ADDED_TOKENS.map((t, i) => [base + i, t.content, t.special]),
    );
  });

  it('learns merges that the library applies to corpus words', () => {
    const tokenizer = ModelTokenizer.fromContents(built);
    expect(model.merges.length).toBeGreaterThan(40);
    expect(tokenizer.encode(' weather').length).toBe(1);
    expect(tokenizer.encode('Think step by step').length).toBeLessThan(8);
  });

  it('writes a Qwen-style tokenizer_config.json', () => {
    expect(built.tokenizerConfig).toMatchObject({
      chat_template: 'T',
      eos_token: '<|im_end|>',
      pad_token: '<|endoftext|>',
      add_bos_token: false,
      additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    });
  });
});
