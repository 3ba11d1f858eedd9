import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTokenizerFiles } from './build-tokenizer.ts';
import { testTokenizer } from './testing/fixture.ts';
import { ModelTokenizer } from './tokenizer.ts';

const built = await testTokenizer();
const tokenizer = ModelTokenizer.fromContents(built);
const added = built.tokenizerJson['added_tokens'] as { id: number; content: string }[];
const idOf = (content: string): number => added.find((t) => t.content === content)?.id ?? -1;

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crane-tok-'));
  dirs.push(dir);
  return dir;
}

describe('ModelTokenizer', () => {
  const samples = [
    'The weather in Paris is sunny.',
    '<|im_start|>user\nWhat is 12 + 30?<|im_end|>\n<|im_start|>assistant\n<think>\nadd\n</think>\n\n42<|im_end|>',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich"}}\n</tool_call>',
    'tabs\tand  spaces \n\n\n émoji 🎉 漢字 \u0000 end',
  ];

  it('round-trips text exactly, and the token bytes concatenate to its UTF-8', () => {
    for (const text of samples) {
      const ids = tokenizer.encode(text);
      expect(tokenizer.decode(ids)).toBe(text);
      const bytes = Buffer.concat(ids.map((id) => tokenizer.tokenBytes(id)));
      expect(bytes.equals(Buffer.from(text, 'utf8'))).toBe(true);
    }
  });

  it('decodes an empty generation to the empty string', () => {
    expect(tokenizer.decode([])).toBe('');
  });

  it('adds no special tokens and encodes format tokens as single ids', () => {
    expect(tokenizer.addsSpecialTokensByDefault).toBe(false);
    const ids = tokenizer.encode('<|im_start|>assistant\n<think>');
    expect(ids[0]).toBe(idOf('<|im_start|>'));
    expect(ids.at(-1)).toBe(idOf('<think>'));
    expect(tokenizer.decode(ids)).toBe('<|im_start|>assistant\n<think>');
  });

  it('adds special tokens by default only when tokenizer_config.json asks for it', () => {
    const bos = idOf('<|endoftext|>');
    const bosItem = { SpecialToken: { id: '<|endoftext|>', type_id: 0 } };
    const withBos = (add_bos_token: boolean) =>
      ModelTokenizer.fromContents({
        tokenizerJson: {
          ...built.tokenizerJson,
          post_processor: {
            type: 'TemplateProcessing',
            single: [bosItem, { Sequence: { id: 'A', type_id: 0 } }],
            pair: [bosItem, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
            special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [bos], tokens: ['<|endoftext|>'] } },
          },
        },
        tokenizerConfig: { ...built.tokenizerConfig, add_bos_token },
      });
    expect(withBos(true).encode('x')).toEqual([bos, tokenizer.requireTokenId('x')]);
    expect(withBos(true).encode('x', { addSpecialTokens: false })).toEqual([tokenizer.requireTokenId('x')]);
    expect(withBos(false).encode('x')).toEqual([tokenizer.requireTokenId('x')]);
  });

  it('skips only tokens marked special when asked', () => {
    const ids = tokenizer.encode('<|im_start|>x<think>y</think><|im_end|>');
    expect(tokenizer.decode(ids, { skipSpecialTokens: true })).toBe('x<think>y</think>');
  });

  it('looks format, eos and pad ids up by content', () => {
    expect(tokenizer.formatTokenIds()).toEqual({
      imStart: idOf('<|im_start|>'),
      imEnd: idOf('<|im_end|>'),
      think: idOf('<think>'),
      thinkEnd: idOf('</think>'),
      toolCall: idOf('<tool_call>'),
      toolCallEnd: idOf('</tool_call>'),
      toolResponse: idOf('<tool_response>'),
      toolResponseEnd: idOf('</tool_response>'),
      eos: idOf('<|im_end|>'),
      pad: idOf('<|endoftext|>'),
    });
    expect(tokenizer.addedTokens.filter((t) => t.special).map((t) => t.id)).toEqual([idOf('<|endoftext|>'), idOf('<|im_start|>'), idOf('<|im_end|>')]);
    expect(tokenizer.vocabSize).toBe(Math.max(...added.map((t) => t.id)) + 1);
  });

  it('follows the file when added tokens are numbered differently', () => {
    // Same tokens, ids reversed: nothing may assume Qwen's (or our builder's) numbering.
    const ids = added.map((t) => t.id);
    const shuffled = added.map((t, i) => ({ ...t, id: ids[ids.length - 1 - i] as number }));
    const other = ModelTokenizer.fromContents({
      tokenizerJson: { ...built.tokenizerJson, added_tokens: shuffled },
      tokenizerConfig: { ...built.tokenizerConfig, eos_token: { content: '<|endoftext|>' } },
    });
    const find = (c: string) => shuffled.find((t) => t.content === c)?.id;
    expect(other.formatTokenIds().think).toBe(find('<think>'));
    expect(other.formatTokenIds().eos).toBe(find('<|endoftext|>'));
    expect(other.encode('<tool_call>')).toEqual([find('<tool_call>')]);
  });

  it('loads a sparse vocabulary in time proportional to its tokens, and refuses ids that are not non-negative integers', () => {
    const withId = (id: unknown, where: 'vocab' | 'added') => {
      const json = structuredClone(built.tokenizerJson) as { model: { vocab: Record<string, unknown> }; added_tokens: { id: unknown }[] };
      if (where === 'vocab') json.model.vocab['Ġweather'] = id;
      else (json.added_tokens[0] as { id: unknown }).id = id;
      return () => ModelTokenizer.fromContents({ tokenizerJson: json as never, tokenizerConfig: built.tokenizerConfig });
    };
    // The library's get_vocab walks an array up to the largest id: this load used to hang.
    const sparse = withId(2 ** 31, 'vocab')();
    expect(sparse.vocabSize).toBe(2 ** 31 + 1);
    expect(() => sparse.assertIdsBelow(tokenizer.vocabSize, 'the embedding')).toThrow(`tokenizer.json: token "Ġweather" has id ${2 ** 31}, outside the embedding (${tokenizer.vocabSize} rows`);
    expect(() => tokenizer.assertIdsBelow(tokenizer.vocabSize, 'the embedding')).not.toThrow();
    for (const bad of [-1, 1.5, '7', 2 ** 53, null]) {
      expect(withId(bad, 'vocab')).toThrow(`tokenizer.json: model.vocab gives token "Ġweather" the id ${JSON.stringify(bad)}; token ids must be non-negative integers`);
    }
    expect(withId(-3, 'added')).toThrow(`tokenizer.json: added_tokens[0] gives token "${added[0]?.content ?? ''}" the id -3`);
  });

  it('reports missing tokens with the file name', () => {
    expect(tokenizer.tokenId('<|fim_prefix|>')).toBeUndefined();
    expect(() => tokenizer.requireTokenId('<|fim_prefix|>')).toThrow('tokenizer.json: has no token "<|fim_prefix|>"');
  });
});

describe('ModelTokenizer.load', () => {
  it('loads a checkpoint directory, with chat_template.jinja when present', async () => {
    const dir = await tempDir();
    await writeTokenizerFiles(dir, built);
    await writeFile(join(dir, 'chat_template.jinja'), 'FILE');
    const loaded = await ModelTokenizer.load(dir);
    expect(loaded.encode('The weather')).toEqual(tokenizer.encode('The weather'));
    expect(loaded.source.chatTemplateFile).toBe('FILE');
    expect(loaded.source.labels.tokenizerJson).toBe(join(dir, 'tokenizer.json'));
  });

  it('names the file that is missing or corrupt', async () => {
    const dir = await tempDir();
    await expect(ModelTokenizer.load(dir)).rejects.toThrow(`${join(dir, 'tokenizer.json')}: missing`);
    await writeFile(join(dir, 'tokenizer.json'), '{"model": ');
    await expect(ModelTokenizer.load(dir)).rejects.toThrow(`${join(dir, 'tokenizer.json')}: is not valid JSON`);
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(built.tokenizerJson));
    await writeFile(join(dir, 'tokenizer_config.json'), '[1, 2]');
    await expect(ModelTokenizer.load(dir)).rejects.toThrow(`${join(dir, 'tokenizer_config.json')}: is not a JSON object`);
    // A Latin-1 byte in the template file: read leniently it would render U+FFFD into every chat.
    await writeFile(join(dir, 'tokenizer_config.json'), '{}');
    await writeFile(join(dir, 'chat_template.jinja'), Buffer.from('{{ "caf\xe9" }}\n', 'latin1'));
    await expect(ModelTokenizer.load(dir)).rejects.toThrow(`${join(dir, 'chat_template.jinja')}:1: is not valid UTF-8`);
  });

  it('rejects a tokenizer.json without a usable model', () => {
    expect(() => ModelTokenizer.fromContents({ tokenizerJson: { version: '1.0' } })).toThrow('tokenizer.json: has no "model" object');
    expect(() => ModelTokenizer.fromContents({ tokenizerJson: { model: { type: 'Mystery' } } })).toThrow(/tokenizer.json: cannot be loaded/);
  });
});
