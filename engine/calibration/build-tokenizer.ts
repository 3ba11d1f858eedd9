/**
 * Builds a small but real Hugging Face tokenizer (byte-level BPE with Qwen-style added tokens),
 * for tests and for the project's own demo checkpoints.
 *
 * API:
 *   `buildTokenizer({corpus, chatTemplate, vocabSize?, minFrequency?, addedTokens?})`
 *     → `{tokenizerJson, tokenizerConfig}` (plain JSON objects, deterministic for a given input).
 *   `writeTokenizerFiles(dir, built)` writes tokenizer.json and tokenizer_config.json.
 * `vocabSize` counts the 256 byte symbols plus the learned merges; the added tokens get the ids
 * right after, as in Qwen's files. The layout (NFC, Qwen's split regex, ByteLevel, BPE) mirrors a
 * real Qwen3 tokenizer.json so that loading our demo pair exercises the same code paths.
 * A Nanbeige4.2-style (Metaspace, byte fallback) tokenizer comes from nanbeige-style-tokenizer.ts,
 * written with the same `writeTokenizerFiles`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { BYTE_LEVEL_ALPHABET } from './byte-level.ts';
import { trainBpe } from './bpe-trainer.ts';
import type { JsonObject } from './tokenizer-source.ts';

export interface AddedTokenSpec {
  readonly content: string;
  /** Control tokens are special (skipped by decode(skip_special_tokens), reset in lm_head by CRANE). */
  readonly special: boolean;
}

/** Qwen3's flags: ChatML control tokens are special; think/tool tags are ordinary added tokens. */
export const QWEN_STYLE_ADDED_TOKENS: readonly AddedTokenSpec[] = [
  { content: '<|endoftext|>', special: true },
  { content: '<|im_start|>', special: true },
  { content: '<|im_end|>', special: true },
  { content: '<tool_call>', special: false },
  { content: '</tool_call>', special: false },
  { content: '<tool_response>', special: false },
  { content: '</tool_response>', special: false },
  { content: '<think>', special: false },
  { content: '</think>', special: false },
];

/** Qwen2/Qwen3's pre-tokenizer split pattern (Oniguruma syntax, as tokenizer.json stores it). */
export const QWEN_SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

export interface BuildTokenizerOptions {
  readonly corpus: string;
  readonly chatTemplate: string;
  /** Byte symbols + merges (default 1024). Training stops earlier when pairs run out. */
  readonly vocabSize?: number;
  readonly minFrequency?: number;
  readonly addedTokens?: readonly AddedTokenSpec[];
  readonly eosToken?: string;
  readonly padToken?: string;
  readonly modelMaxLength?: number;
}

export interface BuiltTokenizer {
  readonly tokenizerJson: JsonObject;
  readonly tokenizerConfig: JsonObject;
}

export function buildTokenizer(options: BuildTokenizerOptions): BuiltTokenizer {
  const addedSpecs = options.addedTokens ?? QWEN_STYLE_ADDED_TOKENS;
  const vocabSize = options.vocabSize ?? 1024;
  if (vocabSize < 256) throw new RangeError(`vocabSize ${vocabSize} is below the 256 byte symbols`);

  const byteVocab = Object.fromEntries(BYTE_LEVEL_ALPHABET.map((ch, i) => [ch, i]));
  const words = preTokenCounts(options.corpus, addedSpecs, tokenizerJson(byteVocab, [], []));
  const { merges } = trainBpe(words, { maxMerges: vocabSize - 256, minFrequency: options.minFrequency ?? 2 });
  const vocab = new Map<string, number>(Object.entries(byteVocab));
  // Two merges can spell the same string ("a"+"bc", "ab"+"c"); the token keeps its first id.
  for (const [a, b] of merges) if (!vocab.has(a + b)) vocab.set(a + b, vocab.size);

  const base = vocab.size;
  const added = addedSpecs.map((spec, i) => ({
    id: base + i,
    content: spec.content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: spec.special,
  }));
  return {
    tokenizerJson: tokenizerJson(Object.fromEntries(vocab), merges, added),
    tokenizerConfig: tokenizerConfig(options, added),
  };
}

export async function writeTokenizerFiles(dir: string, built: BuiltTokenizer): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'tokenizer.json'), `${JSON.stringify(built.tokenizerJson, null, 2)}\n`);
  await writeFile(join(dir, 'tokenizer_config.json'), `${JSON.stringify(built.tokenizerConfig, null, 2)}\n`);
}

/**
 * Counts pre-tokens with the library's own pre-tokenizer, so training sees exactly the pieces that
 * encoding will see. Added tokens are cut out first: they must never take part in merges.
 */
function preTokenCounts(corpus: string, added: readonly AddedTokenSpec[], bare: JsonObject): Map<string, number> {
  const preTokenizer = new Tokenizer(bare, {}).pre_tokenizer;
  if (preTokenizer === null) throw new Error('internal: the byte-level tokenizer has no pre-tokenizer');
  const escaped = added.map((t) => t.content.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const segments = escaped.length === 0 ? [corpus] : corpus.split(new RegExp(escaped.join('|'), 'u'));
  const counts = new Map<string, number>();
  for (const segment of segments) {
    if (segment === '') continue;
    for (const piece of preTokenizer.pre_tokenize_text(segment.normalize('NFC'))) {
      counts.set(piece, (counts.get(piece) ?? 0) + 1);
    }
  }
  return counts;
}

function tokenizerJson(vocab: Record<string, number>, merges: [string, string][], added: JsonObject[]): JsonObject {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: { type: 'NFC' },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [{ type: 'Split', pattern: { Regex: QWEN_SPLIT_PATTERN }, behavior: 'Isolated', invert: false }, byteLevel],
    },
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_suffix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
}

function tokenizerConfig(options: BuildTokenizerOptions, added: readonly { id: number; content: string; special: boolean }[]): JsonObject {
  const eos = options.eosToken ?? '<|im_end|>';
  const pad = options.padToken ?? '<|endoftext|>';
  return {
    add_bos_token: false,
    add_prefix_space: false,
    added_tokens_decoder: Object.fromEntries(
      added.map((t) => [String(t.id), { content: t.content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: t.special }]),
    ),
    additional_special_tokens: added.filter((t) => t.special && t.content !== pad).map((t) => t.content),
    bos_token: null,
    chat_template: options.chatTemplate,
    clean_up_tokenization_spaces: false,
    eos_token: eos,
    errors: 'replace',
    model_max_length: options.modelMaxLength ?? 32768,
    pad_token: pad,
    split_special_tokens: false,
    tokenizer_class: 'Qwen2Tokenizer',
    unk_token: null,
  };
}
