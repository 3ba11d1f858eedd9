/**
 * Builds a small but real Nanbeige4.2-style tokenizer (Llama-style: sentencepiece BPE over
 * Metaspace pieces with byte fallback), for tests and for the project's own looped demo pair.
 *
 * API:
 *   `buildNanbeigeStyleTokenizer({corpus, chatTemplate, vocabSize?, minFrequency?, modelMaxLength?})`
 *     → `{tokenizerJson, tokenizerConfig}` (deterministic for a given input; write them with
 *     build-tokenizer.ts `writeTokenizerFiles`).
 *   `NANBEIGE_STYLE_ADDED_TOKENS` — the added tokens after the vocabulary, in Nanbeige's order.
 *
 * The layout follows Nanbeige4.2-3B's files (../shared/reference/architectures.md §6.6):
 * vocabulary `<unk>` 0, `<s>` 1, `</s>` 2 (also added tokens: special, normalized), the 256
 * `<0x00>`…`<0xFF>` byte-fallback tokens, then characters and learned merges; no normalizer;
 * a Metaspace pre-tokenizer (`▁`, prepend_scheme "first", split false); a TemplateProcessing
 * post-processor that prepends `<|im_start|>` as BOS (tokenizer_config `add_bos_token: true`,
 * `bos_token: "<|im_start|>"` — chats are encoded without it); the Replace/ByteFallback/Fuse/Strip
 * decoder; ChatML control tokens special and not normalized, think/tool-call tags ordinary and
 * normalized, and NO `<tool_response>` token: it is ordinary text, split into pieces.
 * Control characters (newline, tab) are left out of the character set, so, as in Llama's
 * vocabulary, they are always byte-fallback tokens; so is any character the corpus lacks.
 * Merges are learned within words (a run of spaces, or one leading `▁` and what follows up to the
 * next space or control character), as sentencepiece splits by whitespace.
 */
import { trainBpe } from './bpe-trainer.ts';
import type { AddedTokenSpec, BuiltTokenizer } from './build-tokenizer.ts';
import type { JsonObject } from './tokenizer-source.ts';

/** Qwen's added-token fields plus the `normalized` flag Nanbeige's files set per token. */
export interface NanbeigeAddedToken extends AddedTokenSpec {
  readonly normalized: boolean;
}

export const NANBEIGE_STYLE_ADDED_TOKENS: readonly NanbeigeAddedToken[] = [
  { content: '<|im_start|>', special: true, normalized: false },
  { content: '<|im_end|>', special: true, normalized: false },
  { content: '<|endoftext|>', special: true, normalized: false },
  { content: '<think>', special: false, normalized: true },
  { content: '</think>', special: false, normalized: true },
  { content: '<tool_call>', special: false, normalized: true },
  { content: '</tool_call>', special: false, normalized: true },
];

/** Ids 0, 1, 2: in the vocabulary and added tokens too, as in Llama-family files. */
const CONTROL_TOKENS = ['<unk>', '<s>', '</s>'] as const;
const SPACE = '▁';
const BOS = '<|im_start|>';
const BYTE_TOKENS = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);

export interface NanbeigeStyleOptions {
  readonly corpus: string;
  readonly chatTemplate: string;
  /** Control + byte tokens + characters + merges (default 1024). Training stops earlier when pairs run out. */
  readonly vocabSize?: number;
  readonly minFrequency?: number;
  readonly modelMaxLength?: number;
}

export function buildNanbeigeStyleTokenizer(options: NanbeigeStyleOptions): BuiltTokenizer {
  const vocabSize = options.vocabSize ?? 1024;
  const words = wordCounts(options.corpus);
  const characters = [...new Set([SPACE, ...[...words.keys()].flatMap((w) => [...w])])].sort();
  const vocab = new Map<string, number>([...CONTROL_TOKENS, ...BYTE_TOKENS, ...characters].map((t, i) => [t, i]));
  if (vocab.size > vocabSize) {
    throw new RangeError(`vocabSize ${vocabSize} is below the ${vocab.size} control, byte and character tokens this corpus needs`);
  }
  const { merges } = trainBpe(words, { maxMerges: vocabSize - vocab.size, minFrequency: options.minFrequency ?? 2 });
  for (const [a, b] of merges) if (!vocab.has(a + b)) vocab.set(a + b, vocab.size);

  const added = [
    ...CONTROL_TOKENS.map((content, id) => addedToken(id, { content, special: true, normalized: true })),
    ...NANBEIGE_STYLE_ADDED_TOKENS.map((spec, i) => addedToken(vocab.size + i, spec)),
  ];
  return {
    tokenizerJson: tokenizerJson(Object.fromEntries(vocab), merges, added),
    tokenizerConfig: tokenizerConfig(options, added),
  };
}

/** Training words: the corpus outside added tokens, spaces as ▁, cut before each ▁ and at control characters. */
function wordCounts(corpus: string): Map<string, number> {
  const addedContents = [...CONTROL_TOKENS, ...NANBEIGE_STYLE_ADDED_TOKENS.map((t) => t.content)];
  const escaped = addedContents.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const counts = new Map<string, number>();
  // Control characters never enter the vocabulary (byte fallback spells them): they end a word.
  for (const segment of corpus.split(new RegExp(`${escaped.join('|')}|\\p{Cc}+`, 'u'))) {
    for (const word of segment.replaceAll(' ', SPACE).match(/▁+(?=▁)|▁?[^▁]+|▁+/gu) ?? []) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return counts;
}

function addedToken(id: number, spec: NanbeigeAddedToken): JsonObject {
  return { id, content: spec.content, single_word: false, lstrip: false, rstrip: false, normalized: spec.normalized, special: spec.special };
}

function tokenizerJson(vocab: Record<string, number>, merges: [string, string][], added: JsonObject[]): JsonObject {
  const sequence = (id: 'A' | 'B', typeId: number) => ({ Sequence: { id, type_id: typeId } });
  const bos = (typeId: number) => ({ SpecialToken: { id: BOS, type_id: typeId } });
  const bosId = added.find((t) => t['content'] === BOS)?.['id'];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: SPACE, prepend_scheme: 'first', split: false },
    post_processor: {
      type: 'TemplateProcessing',
      single: [bos(0), sequence('A', 0)],
      pair: [bos(0), sequence('A', 0), bos(1), sequence('B', 1)],
      special_tokens: { [BOS]: { id: BOS, ids: [bosId], tokens: [BOS] } },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: SPACE }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
}

function tokenizerConfig(options: NanbeigeStyleOptions, added: readonly JsonObject[]): JsonObject {
  return {
    add_bos_token: true,
    add_eos_token: false,
    add_prefix_space: true,
    added_tokens_decoder: Object.fromEntries(added.map(({ id, ...rest }) => [String(id), {
      content: rest['content'], lstrip: false, normalized: rest['normalized'], rstrip: false, single_word: false, special: rest['special'],
    }])),
    additional_special_tokens: ['<|endoftext|>'],
    bos_token: BOS,
    chat_template: options.chatTemplate,
    clean_up_tokenization_spaces: false,
    eos_token: '<|im_end|>',
    legacy: false,
    model_max_length: options.modelMaxLength ?? 32768,
    pad_token: '<unk>',
    spaces_between_special_tokens: false,
    tokenizer_class: 'LlamaTokenizer',
    unk_token: '<unk>',
    use_default_system_prompt: false,
  };
}
