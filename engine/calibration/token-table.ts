/**
 * Ids by content straight from tokenizer.json, without building the tokenizer.
 *
 *   addedTokensOf(tokenizerJson) → the added tokens, ascending by id (a later entry with the same id wins)
 *   tokenIdOf(tokenizerJson, content) → an added token's id, else the model vocabulary's, else undefined
 *
 * An edit's think and protected rows need only these ids; building Qwen3's BPE model (151 k
 * merges) to ask for them cost ≈ 0.7 of the ≈ 1.2 CPU s the tokenizer took in a ≈ 10 s CRANE
 * export. The answers are @huggingface/tokenizers' get_added_tokens_decoder and token_to_id
 * (checked against the library in token-table.test.ts). Ids are assumed scanned (token-ids.ts).
 */
import type { AddedTokenInfo } from './tokenizer.ts';
import type { JsonObject } from './tokenizer-source.ts';

export function addedTokensOf(tokenizerJson: JsonObject): AddedTokenInfo[] {
  const byId = new Map<number, AddedTokenInfo>();
  for (const entry of addedEntries(tokenizerJson)) byId.set(entry.id, entry);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

export function tokenIdOf(tokenizerJson: JsonObject, content: string): number | undefined {
  // The library maps every added token's content over the vocabulary's, the last entry winning.
  const added = addedEntries(tokenizerJson).findLast((t) => t.content === content);
  if (added !== undefined) return added.id;
  const vocab = (tokenizerJson['model'] as JsonObject | undefined)?.['vocab'];
  if (Array.isArray(vocab)) {
    // Unigram: [piece, score] pairs numbered by position.
    const index = vocab.findIndex((piece: unknown) => Array.isArray(piece) && piece[0] === content);
    return index < 0 ? undefined : index;
  }
  if (typeof vocab !== 'object' || vocab === null || !Object.hasOwn(vocab, content)) return undefined;
  const id = (vocab as JsonObject)[content];
  return typeof id === 'number' ? id : undefined;
}

function addedEntries(tokenizerJson: JsonObject): AddedTokenInfo[] {
  const added = tokenizerJson['added_tokens'];
  if (!Array.isArray(added)) return [];
  return added.map((entry: unknown) => {
    const { id, content, special } = (typeof entry === 'object' && entry !== null ? entry : {}) as { id?: unknown; content?: unknown; special?: unknown };
    return { id: id as number, content: String(content), special: special === true };
  });
}
