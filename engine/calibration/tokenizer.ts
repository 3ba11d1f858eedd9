/**
 * A checkpoint's tokenizer (tokenizer.json + tokenizer_config.json) on @huggingface/tokenizers,
 * plus the token-id lookups CRANE needs.
 *
 * API:
 *   `await ModelTokenizer.load(dir)` / `ModelTokenizer.fromContents({tokenizerJson, tokenizerConfig?})`
 *   `encode(text, {addSpecialTokens?, continuation?})` → ids. Nothing is added unless asked or unless
 *     tokenizer_config.json sets add_bos_token/add_eos_token (chat templates write their own markers:
 *     chats are always encoded with addSpecialTokens false, so Nanbeige's post-processor, which
 *     prepends <|im_start|> as BOS, never doubles the template's own). `continuation` encodes text
 *     that follows other text of the same input (metaspace.ts: no "first" ▁ prepended).
 *   `decode(ids, {skipSpecialTokens?})`, `tokenId(content)`, `requireTokenId(content)`
 *   `formatTokenIds()` → ids of <|im_start|>, <|im_end|>, <think>, … and eos/pad, looked up by content.
 *   `addedTokens` → every added token (id, content, special), ascending by id.
 *   `tokenBytes(id)` → the exact UTF-8 bytes a token stands for (to rebuild offsets; the library
 *     has none): byte-level tokens through the GPT-2 alphabet, sentencepiece-style ones with ▁ as a
 *     space and `<0xAB>` byte-fallback tokens as that one byte (metaspace.ts). A Metaspace "first"
 *     tokenizer's first token of a text not starting with an added token carries the prepended space.
 *   `assertIdsBelow(rows, embedding)` → refuses ids the model's embedding has no row for.
 * Loading refuses ids that are not non-negative integers (token-ids.ts).
 * Ids are never hard-coded: checkpoints of one family can and do number their added tokens differently.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { fromByteLevel } from './byte-level.ts';
import { CalibrationError } from './calibration-error.ts';
import { continuationJson, metaspaceBytes, metaspaceStyle, type MetaspaceStyle } from './metaspace.ts';
import { assertHighestBelow, scanTokenIds, type HighestToken } from './token-ids.ts';
import {
  readTokenizerSource,
  tokenizerSourceFromContents,
  type JsonObject,
  type TokenizerContents,
  type TokenizerSource,
} from './tokenizer-source.ts';

/** Qwen-style format tokens, by role. Other families may lack some; lookups then give undefined. */
export const FORMAT_TOKENS = {
  imStart: '<|im_start|>',
  imEnd: '<|im_end|>',
  think: '<think>',
  thinkEnd: '</think>',
  toolCall: '<tool_call>',
  toolCallEnd: '</tool_call>',
  toolResponse: '<tool_response>',
  toolResponseEnd: '</tool_response>',
} as const;

export type FormatTokenIds = { readonly [K in keyof typeof FORMAT_TOKENS | 'eos' | 'pad']: number | undefined };

export interface AddedTokenInfo {
  readonly id: number;
  readonly content: string;
  readonly special: boolean;
}

type ConfigTokenName = 'bos_token' | 'eos_token' | 'pad_token' | 'unk_token';

const utf8 = new TextEncoder();

export class ModelTokenizer {
  readonly addedTokens: readonly AddedTokenInfo[];
  /** One past the largest id (the embedding needs at least this many rows). */
  readonly vocabSize: number;
  /** True when tokens are GPT-2 byte-level strings, so tokenBytes is exact for every token. */
  readonly byteLevel: boolean;
  /**
   * True when tokenBytes is exact for every token: byte-level, or Metaspace (▁ for a space,
   * byte-fallback tokens as their byte), where only a prepended ▁ is not in the text.
   */
  readonly exactTokenBytes: boolean;
  readonly addsSpecialTokensByDefault: boolean;
  private readonly addedById: ReadonlyMap<number, AddedTokenInfo>;
  private readonly metaspace: MetaspaceStyle | undefined;
  /** tokenizer.json for text that continues an input (metaspace.ts), undefined when it is the same;
   * built into `continuationInner` on first use (a second copy of a large vocabulary costs memory). */
  private readonly continuationSource: JsonObject | undefined;
  private continuationInner: Tokenizer | undefined;

  private constructor(
    private readonly inner: Tokenizer,
    readonly source: TokenizerSource,
    private readonly highestToken: HighestToken | undefined,
  ) {
    this.addedTokens = [...inner.get_added_tokens_decoder().values()]
      .map((t) => ({ id: t.id, content: t.content, special: t.special }))
      .sort((a, b) => a.id - b.id);
    this.addedById = new Map(this.addedTokens.map((t) => [t.id, t]));
    this.vocabSize = (highestToken?.id ?? -1) + 1;
    this.byteLevel = usesByteLevelDecoder(source.tokenizerJson['decoder']);
    this.metaspace = this.byteLevel ? undefined : metaspaceStyle(source.tokenizerJson);
    this.exactTokenBytes = this.byteLevel || this.metaspace !== undefined;
    this.continuationSource = continuationJson(source.tokenizerJson);
    const config = source.tokenizerConfig;
    this.addsSpecialTokensByDefault = config['add_bos_token'] === true || config['add_eos_token'] === true;
  }

  static fromSource(source: TokenizerSource): ModelTokenizer {
    const { highest } = scanTokenIds(source.tokenizerJson, source.labels.tokenizerJson);
    let inner: Tokenizer;
    try {
      inner = new Tokenizer(source.tokenizerJson, source.tokenizerConfig);
    } catch (error) {
      throw new CalibrationError('tokenizer', source.labels.tokenizerJson, `cannot be loaded (${(error as Error).message})`);
    }
    return new ModelTokenizer(inner, source, highest);
  }

  static async load(dir: string): Promise<ModelTokenizer> {
    return ModelTokenizer.fromSource(await readTokenizerSource(dir));
  }

  static fromContents(contents: TokenizerContents): ModelTokenizer {
    return ModelTokenizer.fromSource(tokenizerSourceFromContents(contents));
  }

  /** Refuses ids the model's embedding (`rows` of them, `embedding` says whose) has no row for. */
  assertIdsBelow(rows: number, embedding: string): void {
    assertHighestBelow(this.highestToken, rows, embedding, this.source.labels.tokenizerJson);
  }

  get config(): JsonObject {
    return this.source.tokenizerConfig;
  }

  encode(text: string, options: { addSpecialTokens?: boolean; continuation?: boolean } = {}): number[] {
    const add = options.addSpecialTokens ?? this.addsSpecialTokensByDefault;
    const tokenizer = options.continuation === true ? this.continuing() : this.inner;
    return tokenizer.encode(text, { add_special_tokens: add }).ids;
  }

  private continuing(): Tokenizer {
    if (this.continuationSource === undefined) return this.inner;
    // Differs from the loaded tokenizer.json only in the pre-tokenizer's prepend scheme, so it loads.
    this.continuationInner ??= new Tokenizer(this.continuationSource, this.source.tokenizerConfig);
    return this.continuationInner;
  }

  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    // @huggingface/tokenizers refuses an empty list; a model that stops at once generated "".
    if (ids.length === 0) return '';
    return this.inner.decode([...ids], { skip_special_tokens: options.skipSpecialTokens ?? false });
  }

  tokenId(content: string): number | undefined {
    return this.inner.token_to_id(content);
  }

  requireTokenId(content: string): number {
    const id = this.tokenId(content);
    if (id === undefined) {
      throw new CalibrationError('missing-token', this.source.labels.tokenizerJson, `has no token "${content}"`);
    }
    return id;
  }

  /** The content of a special-token entry of tokenizer_config.json (a string or {content}). */
  configToken(name: ConfigTokenName): string | undefined {
    const value = this.config[name];
    if (typeof value === 'string') return value;
    if (typeof value === 'object' && value !== null && typeof (value as JsonObject)['content'] === 'string') {
      return (value as { content: string }).content;
    }
    return undefined;
  }

  formatTokenIds(): FormatTokenIds {
    const lookup = (content: string | undefined): number | undefined => (content === undefined ? undefined : this.tokenId(content));
    return {
      imStart: lookup(FORMAT_TOKENS.imStart),
      imEnd: lookup(FORMAT_TOKENS.imEnd),
      think: lookup(FORMAT_TOKENS.think),
      thinkEnd: lookup(FORMAT_TOKENS.thinkEnd),
      toolCall: lookup(FORMAT_TOKENS.toolCall),
      toolCallEnd: lookup(FORMAT_TOKENS.toolCallEnd),
      toolResponse: lookup(FORMAT_TOKENS.toolResponse),
      toolResponseEnd: lookup(FORMAT_TOKENS.toolResponseEnd),
      eos: lookup(this.configToken('eos_token')),
      pad: lookup(this.configToken('pad_token')),
    };
  }

  isAddedToken(id: number): boolean {
    return this.addedById.has(id);
  }

  tokenBytes(id: number): Uint8Array {
    const added = this.addedById.get(id);
    if (added !== undefined) return utf8.encode(added.content);
    const token = this.inner.id_to_token(id);
    if (token === undefined) {
      throw new CalibrationError('missing-token', this.source.labels.tokenizerJson, `has no token with id ${id}`);
    }
    if (this.byteLevel) {
      const bytes = fromByteLevel(token);
      if (bytes !== undefined) return bytes;
    }
    if (this.metaspace !== undefined) return metaspaceBytes(token, this.metaspace);
    // Neither (WordPiece…): the decoded text is the best available approximation.
    return utf8.encode(this.inner.decode([id]));
  }
}

function usesByteLevelDecoder(decoder: unknown): boolean {
  if (typeof decoder !== 'object' || decoder === null) return false;
  const d = decoder as { type?: unknown; decoders?: unknown };
  if (d.type === 'ByteLevel') return true;
  return d.type === 'Sequence' && Array.isArray(d.decoders) && d.decoders.some(usesByteLevelDecoder);
}
