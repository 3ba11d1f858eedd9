/**
 * A hand-written Nanbeige-layout tokenizer.json with a vocabulary small enough to work out every
 * split by hand: Metaspace "first", byte fallback, <|im_start|>/<|im_end|> added, and merges that
 * spell `<tool_response>` as "<" or "▁<", "tool", "_response>" (no added token for it, as in
 * Nanbeige). Merge ranks, lowest first: t+o, to+o, too+l, ▁+<, r+e, s+p, re+sp, o+n, on+s,
 * ons+e, resp+onse, <+/, _+response, _response+>.
 */
import { buildNanbeigeStyleTokenizer } from '../nanbeige-style-tokenizer.ts';
import type { JsonObject } from '../tokenizer-source.ts';

const CHARACTERS = ['▁', '<', '>', '/', '_', 'e', 'l', 'n', 'o', 'p', 'r', 's', 't', 'u', 'x'];
const MERGES: [string, string][] = [
  ['t', 'o'], ['to', 'o'], ['too', 'l'], ['▁', '<'], ['r', 'e'], ['s', 'p'], ['re', 'sp'], ['o', 'n'],
  ['on', 's'], ['ons', 'e'], ['resp', 'onse'], ['<', '/'], ['_', 'response'], ['_response', '>'],
];

export function tinyMetaspaceTokenizer(): { tokenizerJson: JsonObject; tokenizerConfig: JsonObject } {
  // The builder's layout (decoder, post-processor, config), with our own vocabulary and merges.
  const layout = buildNanbeigeStyleTokenizer({ corpus: '', chatTemplate: '' });
  const vocab: Record<string, number> = {};
  const control = ['<unk>', '<s>', '</s>'];
  const bytes = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  for (const token of [...control, ...bytes, ...CHARACTERS, ...MERGES.map(([a, b]) => a + b)]) vocab[token] = Object.keys(vocab).length;
  const base = Object.keys(vocab).length;
  const added = [
    ...control.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true })),
    ...['<|im_start|>', '<|im_end|>'].map((content, i) => ({ id: base + i, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
  ];
  const model = layout.tokenizerJson['model'] as JsonObject;
  const postProcessor = layout.tokenizerJson['post_processor'] as JsonObject;
  const bos = { id: '<|im_start|>', ids: [base], tokens: ['<|im_start|>'] };
  return {
    tokenizerJson: {
      ...layout.tokenizerJson,
      added_tokens: added,
      post_processor: { ...postProcessor, special_tokens: { '<|im_start|>': bos } },
      model: { ...model, vocab, merges: MERGES },
    },
    tokenizerConfig: { ...layout.tokenizerConfig, added_tokens_decoder: {} },
  };
}
