/**
 * Sentencepiece-style tokenizers (Llama 2, Nanbeige): the vocabulary writes a space as the
 * Metaspace replacement character `▁`, and with `byte_fallback` a character outside the
 * vocabulary becomes one `<0xAB>` token per UTF-8 byte.
 *
 * API:
 *   `metaspaceStyle(tokenizerJson)` → `{replacement, byteFallback}` when the decoder turns the
 *     replacement back into spaces (a `Metaspace` decoder or a `Replace` of it), else undefined.
 *   `metaspaceBytes(token, style)` → the exact bytes a vocabulary entry stands for.
 *   `continuationJson(tokenizerJson)` → the same tokenizer for text that does NOT start the input,
 *     or undefined when there is no difference.
 *
 * Why continuation matters: with `prepend_scheme: "first"` (Nanbeige) a `▁` is prepended only to
 * the text at offset 0 of the input. Encoding a later piece of a chat on its own (span-encoding.ts
 * does this at loss-mask boundaries) would prepend one and no longer match the whole text's
 * tokens; the continuation tokenizer is the same tokenizer with that prepend turned off, which is
 * exactly what the pre-tokenizer does to every piece not at offset 0. `"always"` prepends to every
 * piece between added tokens, so it needs no continuation form.
 * What @huggingface/tokenizers 0.2 does with these files (read in its source, tested in
 * nanbeige-style-tokenizer.test.ts): "first" prepends to section 0 of its added-token split only;
 * the post-processor's BOS comes only with add_special_tokens; byte fallback spells each UTF-8 byte
 * of an unknown character; Metaspace's `split` is ignored (always unsplit, as Nanbeige's `false`).
 */
import type { JsonObject } from './tokenizer-source.ts';

export interface MetaspaceStyle {
  readonly replacement: string;
  readonly byteFallback: boolean;
}

const BYTE_TOKEN = /^<0x([0-9A-Fa-f]{2})>$/;
const utf8 = new TextEncoder();

export function metaspaceStyle(tokenizerJson: JsonObject): MetaspaceStyle | undefined {
  const replacement = decoderReplacement(tokenizerJson['decoder']);
  if (replacement === undefined) return undefined;
  const model = tokenizerJson['model'] as JsonObject | undefined;
  return { replacement, byteFallback: model?.['byte_fallback'] === true };
}

export function metaspaceBytes(token: string, style: MetaspaceStyle): Uint8Array {
  const byte = style.byteFallback ? BYTE_TOKEN.exec(token) : null;
  if (byte !== null) return Uint8Array.of(parseInt(byte[1] as string, 16));
  return utf8.encode(token.replaceAll(style.replacement, ' '));
}

export function continuationJson(tokenizerJson: JsonObject): JsonObject | undefined {
  const preTokenizer = tokenizerJson['pre_tokenizer'];
  if (!prependsFirst(preTokenizer)) return undefined;
  return { ...tokenizerJson, pre_tokenizer: withoutFirstPrepend(preTokenizer) };
}

function decoderReplacement(decoder: unknown): string | undefined {
  if (!isObject(decoder)) return undefined;
  if (decoder['type'] === 'Metaspace') return typeof decoder['replacement'] === 'string' ? decoder['replacement'] : '▁';
  if (decoder['type'] === 'Replace' && decoder['content'] === ' ') {
    const pattern = decoder['pattern'];
    return isObject(pattern) && typeof pattern['String'] === 'string' ? pattern['String'] : undefined;
  }
  if (decoder['type'] === 'Sequence' && Array.isArray(decoder['decoders'])) {
    for (const inner of decoder['decoders'] as unknown[]) {
      const found = decoderReplacement(inner);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function prependsFirst(preTokenizer: unknown): boolean {
  if (!isObject(preTokenizer)) return false;
  if (preTokenizer['type'] === 'Metaspace') return preTokenizer['prepend_scheme'] === 'first';
  return preTokenizer['type'] === 'Sequence' && Array.isArray(preTokenizer['pretokenizers']) && (preTokenizer['pretokenizers'] as unknown[]).some(prependsFirst);
}

function withoutFirstPrepend(preTokenizer: unknown): unknown {
  if (!isObject(preTokenizer)) return preTokenizer;
  if (preTokenizer['type'] === 'Metaspace' && preTokenizer['prepend_scheme'] === 'first') return { ...preTokenizer, prepend_scheme: 'never' };
  if (preTokenizer['type'] === 'Sequence' && Array.isArray(preTokenizer['pretokenizers'])) {
    return { ...preTokenizer, pretokenizers: (preTokenizer['pretokenizers'] as unknown[]).map(withoutFirstPrepend) };
  }
  return preTokenizer;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
